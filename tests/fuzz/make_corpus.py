"""Write the seed corpus for fuzz_hll into tests/fuzz/corpus/ (run once).

Each seed is: mode, p1, p2, p3, payload (see fuzz_hll.c).  Seeds are real
Redis strings (from the shared vectors' recipes, rebuilt with fastrank) and
hand-made hostile ones (truncated, lying lengths, overrunning opcodes).
"""
import hashlib
import os
import sys

from fastrank._core import pfadd_bytes, pfmerge_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")


def seed(mode, payload, p1=0, p2=128, p3=8):
    data = bytes([mode, p1, p2, p3]) + payload
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    values = []
    for n in (0, 1, 3, 10, 100, 500, 1670, 1671, 3000):
        v, _ = pfadd_bytes(None, [b"item:%d" % i for i in range(n)])
        values.append(v)
    for v in values:
        seed(0x80, v, p3=16)          # raw Redis string, default sparse_max
        seed(0x00, v, p1=20, p3=31)   # small sparse_max: early promotion
        seed(0x80, v[:-1])            # truncated by one byte
        seed(0x80, v + b"\x00")       # one extra ZERO opcode
        seed(0x88 | 0x10, v + values[2], p2=int(256 * len(v) / (len(v) + len(values[2]))))
    sparse_small = values[2][16:]
    seed(0x81, sparse_small)                     # synthesised sparse header
    seed(0x83, bytes(range(256)) * 8)            # synthesised dense
    seed(0x85, b"\x7f\xff")                       # valid cache flag
    seed(0x81, b"\x7f\xfe\x7f")                   # truncated XZERO at the end
    seed(0x81, b"\x40\xfe\x7f")                   # 255 + lone XZERO byte
    seed(0x81, b"\xfc" * 4097)                    # VAL(32,1) x 4097: overrun
    seed(0x81, b"\x7f\xff" * 3)                   # 3 x 16384 registers
    seed(0x81, b"\x3f" * 256)                     # 256 x ZERO(64) = 16384
    seed(0x81, b"\x83" * 4096)                    # VAL(1,4) x 4096 = 16384
    seed(0x80, b"HYLL\x02" + bytes(11) + b"\x7f\xff")  # bad encoding byte
    seed(0x80, b"HYLL\x00" + bytes(11))           # dense, wrong length
    seed(0x80, b"HYL")                            # short
    print("corpus:", len(os.listdir(OUT)), "files in", OUT)


if __name__ == "__main__":
    sys.exit(main())
