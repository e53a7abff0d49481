"""Drives a profiler service the way xprof's Capture Profile and continuous-profiling API do,
through xprof's own client library (the pinned PyPI wheel). One command per call; prints one
JSON line: {"ok": bool, "error": str, "seconds": float}.

  capture_client.py trace ADDR LOGDIR DURATION_MS [ATTEMPTS] [OPTIONS_JSON]
  capture_client.py start ADDR
  capture_client.py snapshot ADDR LOGDIR
  capture_client.py stop ADDR
  capture_client.py monitor ADDR
"""
import json
import sys
import time

from xprof.convert import _pywrap_profiler_plugin as client


def main(argv):
    cmd, addr = argv[1], argv[2]
    t = time.time()
    out = {"ok": True, "error": ""}
    try:
        if cmd == "trace":
            attempts = int(argv[5]) if len(argv) > 5 else 1
            options = json.loads(argv[6]) if len(argv) > 6 else {}
            client.trace(addr, argv[3], "", True, int(argv[4]), attempts, options)
        elif cmd == "start":
            client.start_continuous_profiling(addr, {})
        elif cmd == "snapshot":
            client.get_snapshot(addr, argv[3])
        elif cmd == "stop":
            client.stop_continuous_profiling(addr)
        elif cmd == "monitor":
            out["text"] = client.monitor(addr, 100, 1, False)
        else:
            raise SystemExit(f"unknown command {cmd}")
    except Exception as e:  # the client raises RuntimeError("<CODE>: <message>")
        out = {"ok": False, "error": str(e)}
    out["seconds"] = time.time() - t
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
