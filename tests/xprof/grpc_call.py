"""Sends one request message, already encoded, to a gRPC method COUNT times over one channel,
with grpcio (installed with xprof): what a hostile or broken client can send that xprof's own
client never does. Prints one JSON line: {"codes": [...], "details": [...]}.

  grpc_call.py ADDR METHOD REQUEST_FILE COUNT
"""
import json
import sys

import grpc


def main(argv):
    addr, method, path, count = argv[1], argv[2], argv[3], int(argv[4])
    with open(path, "rb") as f:
        data = f.read()
    channel = grpc.insecure_channel(
        addr,
        options=[
            ("grpc.max_send_message_length", -1),
            ("grpc.max_receive_message_length", -1),
        ],
    )
    call = channel.unary_unary(method)
    codes, details = [], []
    for _ in range(count):
        try:
            call(data, timeout=20)
            codes.append("OK")
            details.append("")
        except grpc.RpcError as e:
            codes.append(e.code().name)
            details.append(e.details() or "")
    channel.close()
    print(json.dumps({"codes": codes, "details": details}))


if __name__ == "__main__":
    main(sys.argv)
