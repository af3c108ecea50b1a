# Runs a Python receiver's upicollect_verify over the test vectors: one line
# per vector, "valid <name>" or "invalid <name>". Each vector's header
# fields reach the receiver as a WSGI server (wsgiref, gunicorn) puts them
# in environ: HTTP_ and the name in upper case with - as _, the values
# trimmed and joined with ","; the receiver reads HTTP_UPICOLLECT_SIGNATURE.
# e2e's live tests send the same shapes to wsgiref.
# Usage: python3 check_vectors.py RECEIVER.py webhook_vectors.json
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("receiver", sys.argv[1])
receiver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(receiver)
with open(sys.argv[2], encoding="utf-8") as f:
    file = json.load(f)
for v in file["vectors"]:
    environ = {}
    for h in v["headers"]:
        key = "HTTP_" + h["name"].replace("-", "_").upper()
        value = h["value"].strip()
        environ[key] = environ[key] + "," + value if key in environ else value
    header = environ.get("HTTP_UPICOLLECT_SIGNATURE", "")
    ok = receiver.upicollect_verify(header, v["body"].encode(), v["secret"], file["tolerance_seconds"], v["now"])
    print("valid" if ok else "invalid", v["name"])
