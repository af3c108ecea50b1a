# Runs a Python receiver's upicollect_verify over the test vectors: one line
# per vector, "valid <name>" or "invalid <name>".
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
    ok = receiver.upicollect_verify(v["header"], v["body"].encode(), v["secret"], file["tolerance_seconds"], v["now"])
    print("valid" if ok else "invalid", v["name"])
