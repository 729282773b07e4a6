#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/seeds/TARGET/) from the
shipped sample and every kind of bad input the tests use. Run from the
repository root; the seeds are committed, so this is only for refreshing."""
import hashlib, os, pathlib, re

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
    # Inputs kept by hand as regressions (named crash-*, slow-*, oom-*, or
    # for what they hold) stay; the generated seeds (named by their hash)
    # are written afresh.
    for f in d.iterdir():
        if re.fullmatch(r"[0-9a-f]{16}", f.name):
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

# parquet: two option bytes (lanes and page runs, the first row), then a
# small table as pyarrow writes it, in every shape the reader takes (text,
# dictionaries, digit lists, nulls, V1 and V2 pages, each codec, statistics,
# several row groups of many pages), and the damaged page headers that once
# made the parquet crate loop. Binary seeds, so they are rewritten only where
# pyarrow is installed; elsewhere the committed ones stay.
try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError:
    pa = None
    print("fuzz-seeds: no pyarrow: fuzz/seeds/parquet left as it is")
if pa is not None:
    def table(columns, schema=None, **options):
        out = pa.BufferOutputStream()
        pq.write_table(pa.table(columns, schema=schema), out, **options)
        return out.getvalue().to_pybytes()

    puzzles = [p[:81] for p in sample[:40]]
    short = [None if i % 5 == 3 else p[:9 + i % 7] for i, p in enumerate(puzzles)]
    digits = [[0 if c == "." else int(c) for c in p] for p in puzzles[:6]]
    small = dict(write_batch_size=2, data_page_size=1, write_statistics=False)
    lanes = table({"puzzle": puzzles}, compression="snappy", use_dictionary=False,
                  row_group_size=20, **small)
    parquet = [
        b"\x00\x00" + lanes,
        b"\x25\x80" + table({"puzzle": short}, compression="zstd", data_page_version="2.0",
                            row_group_size=20, **small),
        b"\x46\x20" + table({"id": list(range(40)), "puzzle": pa.array(short).dictionary_encode()},
                            compression="gzip", write_batch_size=4, data_page_size=1),
        b"\x8b\x00" + table({"puzzle": pa.array(digits, type=pa.list_(pa.int8())),
                             "n": [1.5 * i for i in range(6)]}, compression="none",
                            write_batch_size=1, data_page_size=1, write_statistics=False),
        b"\x01\x40" + table({"puzzle": pa.array([[d[r * 9:r * 9 + 9] for r in range(9)] for d in digits[:3]],
                                                type=pa.list_(pa.list_(pa.int32())))},
                            compression="lz4", data_page_version="2.0"),
        b"\x33\x00" + table({"puzzle": pa.array(short[:12], type=pa.large_string()),
                             "at": pa.array(range(12), type=pa.timestamp("ms"))},
                            compression="brotli", write_page_checksum=True, write_batch_size=3,
                            data_page_size=1),
        # Read by our own page decoder: a required column whose dictionary
        # fills up (dictionary pages, then PLAIN ones), and an optional one
        # with nulls, uncompressed, the same way.
        b"\x21\x30" + table({"puzzle": puzzles},
                            schema=pa.schema([pa.field("puzzle", pa.string(), nullable=False)]),
                            compression="snappy", dictionary_pagesize_limit=300,
                            row_group_size=15, **small),
        b"\x0e\x90" + table({"puzzle": short}, compression="none", dictionary_pagesize_limit=100,
                            row_group_size=25, write_batch_size=3, data_page_size=200),
        b"\x12\x00" + table({"puzzle": pa.array([s.encode() if s else None for s in short[:10]],
                                                type=pa.binary())}, write_page_index=True),
    ]
    # The damaged headers: an unknown field 10 over the start of the second
    # row group's first page header, holding 2^31 - 1 doubles (skipped past
    # the end of the file) or booleans (skipped as taking no bytes).
    second = pq.ParquetFile(pa.BufferReader(lanes)).metadata.row_group(1).column(0).data_page_offset
    for item in (0xF7, 0xF1):
        damaged = bytearray(lanes)
        damaged[second:second + 7] = bytes([0xA9, item, 0xFF, 0xFF, 0xFF, 0xFF, 0x07])
        parquet.append(b"\x00\x00" + bytes(damaged))
    write("parquet", parquet)
