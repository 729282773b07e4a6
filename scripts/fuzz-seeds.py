#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/seeds/TARGET/) from the
shipped sample and every kind of bad input the tests use. Run from the
repository root; the seeds are committed, so this is only for refreshing."""
import hashlib, os, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
sample = [l.strip() for l in open(root / "datasets/sample.txt") if l.strip() and not l.startswith("#")]
P, S = sample[0][:81], None
CLASSIC = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"

def grid(p):
    return "".join(p[i:i + 9] + "\n" for i in range(0, 81, 9))

def write(target, seeds):
    d = root / "fuzz/seeds" / target
    d.mkdir(parents=True, exist_ok=True)
    for f in d.iterdir():
        f.unlink()
    for s in seeds:
        b = s if isinstance(s, bytes) else s.encode()
        (d / hashlib.sha1(b).hexdigest()[:16]).write_bytes(b)

bad_lines = [
    CLASSIC[:80], CLASSIC + "5", CLASSIC[:40] + "é" + CLASSIC[41:], CLASSIC[:10] + "\0" + CLASSIC[11:],
    "", "   ", "# comment", CLASSIC + "\r", CLASSIC + ",", CLASSIC + "," + SOLUTION, CLASSIC + ":1:" + SOLUTION,
    "." * 81, SOLUTION, "x" * 300,
]
records = ["\n".join(sample[:20]) + "\n", "quizzes,solutions\n" + CLASSIC + "," + SOLUTION + "\r\n",
           "\ufeffpuzzle\n" + CLASSIC + "\n", grid(CLASSIC) + "\n" + grid(CLASSIC),
           "2\n" + grid(CLASSIC) + "---+---+---\n" + grid(CLASSIC), "Grid 01\n" + grid(CLASSIC)[:-12] + "\nxx\n"]
records += [l + "\n" for l in bad_lines] + ["\n".join(bad_lines)]
write("records", records)

answers = [b"\x00" + SOLUTION.encode(), b"\x01unsolvable", b"\x02invalid", b"\x03malformed",
           ("\x00" + f"1,{CLASSIC},unique,1,{SOLUTION},0").encode(),
           ("\x01" + f"in.txt,1,{CLASSIC},multiple,2,{SOLUTION},0").encode(),
           ("\x00" + f'{{"line":1,"puzzle":"{CLASSIC}","status":"solved","solutions":1,"solution":"{SOLUTION}","guesses":0}}').encode(),
           ("\x81" + f":1:{SOLUTION}").encode(), ("\x00" + f",{SOLUTION},30,1.5").encode(),
           ("\x02" + '1,"a\nb",malformed,0,,0').encode()]
write("answers", answers)

resume = ["line,puzzle,status,solutions,solution,guesses\n" + f"1,{CLASSIC},solved,1,{SOLUTION},0\n2,\"x,\n\"\"y\",malformed,0,,0\n3,{CLASSIC},sol",
          SOLUTION + "\n" + SOLUTION[:40], '{"line":1}\n{"line":2,"puzzle":"a\\nb"}\n{"li', "", "\n\n\"\n"]
write("resume_prefix", resume)

# csv_stream: a first byte (column, read size), then CSV; 0xFE n c stands for
# c repeated (n % 40 + 1) * 32 KiB times.
def run(n, c):
    return b"\xfe" + bytes([n]) + c
csv_stream = [b"\x01id,puzzle\n1," + CLASSIC.encode() + b"\n2,bad\n",
              b"\x04" + f'id,desc,puzzle\n1,a 5" board,{CLASSIC}\n2,12" x 12",{CLASSIC}\n3,"q""",{CLASSIC}\n'.encode(),
              b"\x07a,\"" + run(2, b"x") + b"\n\",x\n" + b"b,\"" + run(3, b"\n") + b"\"," + CLASSIC.encode() + b"\n",
              b"\x02n,\"" + run(39, b"y") + b"\"\n1,2," + CLASSIC.encode() + b"\n#,\"" + run(35, b"\n") + b"\"\nlast",
              b"\x05" + b"\n".join(f"{i},\" {i}\"\"\",{CLASSIC}".encode() for i in range(20)) + b"\r\n"]
write("csv_stream", csv_stream)

def encode(p):
    return bytes(0x80 + int(c) - 1 if c in "123456789" else 0 for c in p[:81])
write("solvers", [encode(p) for p in sample[:40]] + [encode("." * 81), encode(SOLUTION), encode(CLASSIC)])
