<?php
// Runs a PHP receiver over the test vectors: one line per vector, "valid
// <name>" or "invalid <name>". Each vector's header fields reach the
// receiver as getallheaders() gives them under php -S (the names as sent;
// the values of fields sent under one name joined with ", "), read with
// its upicollect_signature_header, then checked with its
// upicollect_verify. e2e's live tests send the same shapes to php -S.
// Usage: php check_vectors.php RECEIVER.php webhook_vectors.json
require $argv[1];
$file = json_decode(file_get_contents($argv[2]), true);
foreach ($file['vectors'] as $v) {
    $headers = [];
    foreach ($v['headers'] as $h) {
        $headers[$h['name']] = isset($headers[$h['name']]) ? $headers[$h['name']] . ', ' . $h['value'] : $h['value'];
    }
    $ok = upicollect_verify(upicollect_signature_header($headers), $v['body'], $v['secret'], $file['tolerance_seconds'], $v['now']);
    echo ($ok ? 'valid' : 'invalid'), ' ', $v['name'], "\n";
}
