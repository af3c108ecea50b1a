<?php
// Runs a PHP receiver's upicollect_verify over the test vectors: one line
// per vector, "valid <name>" or "invalid <name>".
// Usage: php check_vectors.php RECEIVER.php webhook_vectors.json
require $argv[1];
$file = json_decode(file_get_contents($argv[2]), true);
foreach ($file['vectors'] as $v) {
    $ok = upicollect_verify($v['header'], $v['body'], $v['secret'], $file['tolerance_seconds'], $v['now']);
    echo ($ok ? 'valid' : 'invalid'), ' ', $v['name'], "\n";
}
