//! The readers' unit tests.

use super::*;

#[test]
fn packed_rows_are_every_row_a_record_cut_and_skipped_whole() {
    let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let mut packer = RowPacker::new();
    for row in [
        Some(p.as_bytes()),
        None,
        Some(b"" as &[u8]),
        Some(b"# text"),
        Some(p.as_bytes()),
    ] {
        packer.push(row);
    }
    // 81 bytes that are not 81 cells: the one-pass read of 81-cell
    // rows hands them to the careful parser, which names the column.
    let typo = p.replacen('.', "x", 1);
    packer.push(Some(typo.as_bytes()));
    let data = packer.take();
    let recs: Vec<ParsedRecord<'_>> = records(&data, 10, InputFormat::Rows).collect();
    assert_eq!(recs.len(), 6);
    assert_eq!(
        recs.iter().map(|r| r.line).collect::<Vec<_>>(),
        [10, 11, 12, 13, 14, 15]
    );
    assert_eq!(recs[0].givens(), Grid::parse_line(p.as_bytes()));
    assert_eq!(recs[0].raw, p.as_bytes());
    assert!(recs[4].puzzle.is_ok());
    assert_eq!(recs[1].givens(), Err(ParseError::Null));
    assert!(recs[2].puzzle.is_err() && recs[3].puzzle.is_err());
    assert_eq!(recs[5].givens(), Grid::parse_line(typo.as_bytes()));
    assert!(matches!(
        recs[5].givens(),
        Err(ParseError::BadChar { column: 3, .. })
    ));
    let data = &data[..data.len() - 4 - CELLS];
    assert_eq!(units_in(data, InputFormat::Rows), 5);
    let (skipped, pos, line) = skip_records(data, 10, InputFormat::Rows, 2);
    assert_eq!((skipped, line), (2, 12));
    assert_eq!(records(&data[pos..], line, InputFormat::Rows).count(), 3);
    // A stream cut inside a row keeps the rows before it.
    let whole = Framing::Packed.complete_prefix(&data[..data.len() - 3]);
    assert_eq!(records(&data[..whole], 0, InputFormat::Rows).count(), 4);
    assert_eq!(Framing::Packed.complete_prefix(data), data.len());
    // Chunks end on row boundaries.
    let mut cursor = ChunkCursor::new(0, InputFormat::Rows, 50);
    let mut rows = 0;
    while let Some(c) = cursor.next_chunk(data) {
        rows += records(c.data, c.first_line, c.format).count();
    }
    assert_eq!(rows, 5);
}

const P: &str = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn lines_of(data: &str, format: InputFormat) -> Vec<(u64, bool)> {
    records(data.as_bytes(), 1, format)
        .map(|r| (r.line, r.puzzle.is_ok()))
        .collect()
}

#[test]
fn newlines_are_counted_across_lane_and_block_edges() {
    for len in [
        0,
        1,
        31,
        32,
        33,
        255 * 32 - 1,
        255 * 32,
        255 * 32 + 1,
        255 * 32 * 2 + 7,
        30_000,
    ] {
        let data: Vec<u8> = (0..len)
            .map(|i| if i % 3 == 0 { b'\n' } else { b'x' })
            .collect();
        let plain = data.iter().filter(|&&b| b == b'\n').count() as u64;
        assert_eq!(count_newlines(&data), plain, "length {len}");
    }
    // Every byte a newline: the byte counters must not overflow.
    assert_eq!(count_newlines(&vec![b'\n'; 100_000]), 100_000);
}

#[test]
fn newlines_are_told_from_every_other_byte_at_every_offset() {
    // Each byte value, next to newlines and to the bytes one bit away from
    // a newline (0x0b, 0x08, 0x8a, ...), at each position of a word and
    // across the 8,160-byte blocks.
    let mut data = Vec::new();
    for round in 0..40u32 {
        for b in 0..=255u8 {
            data.push(b);
            if (u32::from(b) + round) % 7 == 0 {
                data.push(b'\n');
            }
            data.push(b'\n' ^ (1 << (u32::from(b) % 8)));
        }
    }
    for start in 0..9 {
        for end in [
            data.len(),
            data.len() - 3,
            8 * 4 * 255 + 5,
            8 * 4 * 255 * 2 + 1,
        ] {
            let slice = &data[start..end];
            let plain = slice.iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_newlines(slice), plain, "bytes {start}..{end}");
        }
    }
}

#[test]
fn csv_headers_are_recognised() {
    assert!(is_csv_header(b"quizzes,solutions"));
    assert!(is_csv_header(b"puzzle,solution,clues,difficulty"));
    assert!(is_csv_header(b"Puzzle"));
    assert!(is_csv_header(b"\"id\",\"puzzle\",\"solution\""));
    assert!(is_csv_header(b"\"Puzzle\""));
    assert!(!is_csv_header(b"\"a,b"));
    assert!(!is_csv_header(P.as_bytes()));
    assert!(!is_csv_header(b"hello"));
    assert!(!is_csv_header(b"bad line!"));
}

#[test]
fn detection_skips_headers_and_count_lines() {
    let csv = format!("quizzes,solutions\r\n{P},{P}\n");
    let d = detect(csv.as_bytes(), None);
    assert_eq!(d.format, InputFormat::Line);
    assert_eq!(d.first_line, 2);
    assert_eq!(&csv.as_bytes()[d.start..d.start + 5], b"53..7");

    let plain = format!("# comment\n{P}\n");
    let d = detect(plain.as_bytes(), None);
    assert_eq!(
        (d.format, d.start, d.first_line),
        (InputFormat::Line, 10, 2)
    );

    let rows: String = (0..9)
        .map(|r| format!("{}\n", &P[9 * r..9 * r + 9]))
        .collect();
    let grid = format!("2\n{rows}");
    let d = detect(grid.as_bytes(), None);
    assert_eq!((d.format, d.start, d.first_line), (InputFormat::Grid, 2, 2));

    // Short digit lines, a title-like word or a rule line alone do not
    // make a grid: bad line-form input stays line form.
    for bad in ["hello\n", "123\n", "-----\n", "530070000\nshort\n"] {
        assert_eq!(
            detect(bad.as_bytes(), None).format,
            InputFormat::Line,
            "{bad}"
        );
    }
    assert_eq!(detect(b"", None).format, InputFormat::Line);
    assert_eq!(
        detect(P.as_bytes(), Some(InputFormat::Grid)).format,
        InputFormat::Grid
    );
}

#[test]
fn grid_form_with_separators_titles_and_blanks() {
    let g: Grid = P.parse().unwrap();
    let block = g.to_block();
    let compact: String = (0..9)
        .map(|r| format!("{}\n", &P[9 * r..9 * r + 9]))
        .collect();
    let text = format!(
        "Grid 01\n{block}\n{compact}# note\n{}",
        compact.replace('.', "0")
    );
    let recs: Vec<_> = records(text.as_bytes(), 1, InputFormat::Grid).collect();
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert_eq!(r.givens(), Ok(g));
    }
    assert_eq!(recs[0].line, 2);
    assert_eq!(recs[1].line, 14);
    assert_eq!(recs[2].line, 24);
    assert!(recs[0].raw.starts_with(b"5 3 ."));
    assert!(recs[0].raw.ends_with(b". 7 9"));
}

#[test]
fn broken_grids_are_reported_and_the_next_one_still_read() {
    let rows: Vec<String> = (0..9).map(|r| P[9 * r..9 * r + 9].to_string()).collect();
    let mut text = String::new();
    text += &rows[..5].join("\n");
    text += "\n\n";
    let mut bad = rows.clone();
    bad[2] = "53x..7...".into();
    text += &bad.join("\n");
    text += "\n";
    text += &rows.join("\n");
    let recs: Vec<_> = records(text.as_bytes(), 1, InputFormat::Grid).collect();
    assert_eq!(recs.len(), 3);
    assert_eq!(
        recs[0].givens(),
        Err(ParseError::IncompleteGrid { rows: 5 })
    );
    assert_eq!(recs[0].line, 1);
    assert_eq!(
        recs[1].puzzle.as_ref().unwrap_err().to_string(),
        "grid row 3: bad character 'x' at column 3"
    );
    assert_eq!(recs[1].line, 7);
    assert!(recs[2].puzzle.is_ok());
    assert_eq!(recs[2].line, 16);
}

#[test]
fn line_records_number_lines_and_parse() {
    let text = format!("# c\n\n{P}\r\nxx\n{P}");
    assert_eq!(
        lines_of(&text, InputFormat::Line),
        vec![(3, true), (4, false), (5, true)]
    );
}

#[test]
fn chunks_cover_the_input_and_keep_line_numbers() {
    let mut text = String::new();
    for i in 0..50 {
        if i % 7 == 0 {
            text += "# comment\n";
        }
        text += P;
        text += "\n";
    }
    for target in [1, 100, 1000, 100_000] {
        let chunks: Vec<_> =
            ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, target).collect();
        let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.iter().copied()).collect();
        assert_eq!(joined, text.as_bytes());
        let all: Vec<u64> = chunks
            .iter()
            .flat_map(|c| records(c.data, c.first_line, c.format).map(|r| r.line))
            .collect();
        let whole: Vec<u64> = records(text.as_bytes(), 1, InputFormat::Line)
            .map(|r| r.line)
            .collect();
        assert_eq!(all, whole);
    }
}

#[test]
fn shrinking_chunks_cover_the_input_and_get_smaller_toward_the_end() {
    let text: String = (0..2000).map(|_| format!("{P}\n")).collect();
    let line = P.len() + 1;
    let chunks: Vec<_> = ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, 40 * line)
        .shrinking(8, 2 * line)
        .collect();
    let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.iter().copied()).collect();
    assert_eq!(joined, text.as_bytes());
    let lines: Vec<usize> = chunks.iter().map(|c| c.data.len() / line).collect();
    // Cut after the first line end at or past the target: target + 1.
    assert_eq!(lines[0], 41, "full size while much is left");
    assert!(lines.windows(2).all(|w| w[1] <= w[0]), "{lines:?}");
    let last_full = lines.iter().rposition(|&n| n == 41).unwrap();
    assert!(last_full + 10 < lines.len(), "then shrinking: {lines:?}");
    let before_last = &lines[..lines.len() - 1];
    assert!(before_last.iter().all(|&n| n >= 3), "never under the floor");
    assert_eq!(lines.iter().sum::<usize>(), 2000);
}

#[test]
fn uncounted_chunks_rebase_by_their_newlines() {
    let text: String = (0..40)
        .map(|i| {
            if i % 5 == 0 {
                "#\n".to_string()
            } else {
                format!("{P}\n")
            }
        })
        .collect();
    let mut base = 0;
    let mut all = Vec::new();
    for c in ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, 200).without_line_numbers() {
        all.extend(records(c.data, c.first_line, c.format).map(|r| r.line + base));
        base += count_newlines(c.data);
    }
    let whole: Vec<u64> = records(text.as_bytes(), 1, InputFormat::Line)
        .map(|r| r.line)
        .collect();
    assert_eq!(all, whole);
}

#[test]
fn grid_chunks_cut_between_records() {
    let g: Grid = P.parse().unwrap();
    let text: String = (0..20).map(|_| format!("{}\n", g.to_block())).collect();
    for target in [1, 300, 5000] {
        let chunks: Vec<_> =
            ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Grid, target).collect();
        let recs: Vec<_> = chunks
            .iter()
            .flat_map(|c| records(c.data, c.first_line, c.format).collect::<Vec<_>>())
            .collect();
        assert_eq!(recs.len(), 20, "target {target}");
        assert!(recs.iter().all(|r| r.givens() == Ok(g)));
        assert_eq!(recs[1].line, 13);
    }
}

#[test]
fn skipping_records_finds_where_to_resume() {
    let text = format!("# c\n{P}\n\n{P}\n{P}\n");
    let (n, pos, line) = skip_records(text.as_bytes(), 1, InputFormat::Line, 2);
    assert_eq!((n, line), (2, 5));
    assert_eq!(
        records(&text.as_bytes()[pos..], line, InputFormat::Line).count(),
        1
    );
    let (n, _, _) = skip_records(text.as_bytes(), 1, InputFormat::Line, 10);
    assert_eq!(n, 3);

    let g: Grid = P.parse().unwrap();
    let grid_text: String = (0..3).map(|_| format!("{}\n", g.to_block())).collect();
    let (n, pos, line) = skip_records(grid_text.as_bytes(), 1, InputFormat::Grid, 1);
    assert_eq!(n, 1);
    let rest: Vec<_> = records(&grid_text.as_bytes()[pos..], line, InputFormat::Grid).collect();
    assert_eq!(rest.len(), 2);
    assert_eq!(rest[0].line, 13);
}

#[test]
fn complete_prefix_stops_before_unfinished_records() {
    let text = format!("{P}\n{}", &P[..40]);
    assert_eq!(complete_prefix(text.as_bytes(), InputFormat::Line), 82);
    let g: Grid = P.parse().unwrap();
    let block = g.to_block();
    let two = format!("{block}{}", &block[..50]);
    assert_eq!(
        complete_prefix(two.as_bytes(), InputFormat::Grid),
        block.len()
    );
    assert_eq!(complete_prefix(b"no newline", InputFormat::Line), 0);
}

/// Reads a stream whole through `StreamChunks`: the chunks, and the
/// records (line number, raw text) read from them.
fn stream(data: &[u8], framing: Framing) -> (Vec<StreamChunk>, Vec<(u64, Vec<u8>)>) {
    let mut s = StreamChunks::new(data);
    s.set_framing(framing);
    let mut chunks = Vec::new();
    while let Some(c) = s.next_chunk().unwrap() {
        chunks.push(c);
    }
    let format = match framing {
        Framing::Grid => InputFormat::Grid,
        _ => InputFormat::Line,
    };
    let recs = chunks
        .iter()
        .flat_map(|c| records(&c.data, c.first_line, format))
        .map(|r| (r.line, r.raw.to_vec()))
        .collect();
    (chunks, recs)
}

#[test]
fn streams_give_the_records_a_whole_read_gives() {
    let mut data = String::new();
    for i in 0..20_000 {
        data += &format!("# {i}\n{P}\n\n");
    }
    let whole: Vec<(u64, Vec<u8>)> = records(data.as_bytes(), 1, InputFormat::Line)
        .map(|r| (r.line, r.raw.to_vec()))
        .collect();
    let (chunks, got) = stream(data.as_bytes(), Framing::Line);
    assert!(chunks.len() > 2);
    assert_eq!(got, whole);
    let grids: String = (0..10_000).map(|_| format!("{}\n", grid_text(P))).collect();
    let whole: Vec<(u64, Vec<u8>)> = records(grids.as_bytes(), 1, InputFormat::Grid)
        .map(|r| (r.line, r.raw.to_vec()))
        .collect();
    let (chunks, got) = stream(grids.as_bytes(), Framing::Grid);
    assert!(chunks.len() > 2);
    assert_eq!(got, whole);
}

fn grid_text(line: &str) -> String {
    line.as_bytes()
        .chunks(9)
        .map(|r| format!("{}\n", std::str::from_utf8(r).unwrap()))
        .collect()
}

#[test]
fn streams_cut_long_lines_and_drop_comment_stretches() {
    // A 5 MB line without a line end, then a puzzle: the long line is
    // kept as its first MAX_LINE bytes, and line numbers stay right.
    let mut data = vec![b'x'; 5 << 20];
    data.extend_from_slice(format!("\n{P}\n").as_bytes());
    let (chunks, got) = stream(&data, Framing::Line);
    assert!(chunks
        .iter()
        .all(|c| c.data.len() <= STREAM_CHUNK + MAX_LINE + 1));
    assert_eq!(got.len(), 2);
    assert_eq!((got[0].0, got[0].1.len()), (1, MAX_LINE));
    assert_eq!((got[1].0, got[1].1.as_slice()), (2, P.as_bytes()));
    // Grid form: 20 MB of comments between two grids.
    let mut data = grid_text(P).into_bytes();
    let comments = "# comment\n".repeat(2_000_000);
    data.extend_from_slice(comments.as_bytes());
    data.extend_from_slice(grid_text(P).as_bytes());
    let (chunks, got) = stream(&data, Framing::Grid);
    assert!(chunks.iter().all(|c| c.data.len() <= MAX_RECORD + MAX_LINE));
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].0, 10 + 2_000_000);
}

#[test]
fn the_top_of_a_stream_skips_any_number_of_comments() {
    let data = format!("{}quizzes,solutions\n{P},{P}\n", "# c\n".repeat(100_000));
    let mut s = StreamChunks::new(data.as_bytes());
    let (top, line) = s.top().unwrap();
    assert_eq!(line, 100_001);
    let d = detect(top, None);
    assert_eq!((d.format, d.start), (InputFormat::Line, 18));
    s.consume(d.start);
    let c = s.next_chunk().unwrap().unwrap();
    assert_eq!(c.first_line, 100_002);
    assert!(c.data.starts_with(P.as_bytes()));
}

#[test]
fn a_quote_inside_an_unquoted_field_is_a_character() {
    let fields = |t: &str| -> Vec<String> {
        csv_fields(t.as_bytes())
            .iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect()
    };
    assert_eq!(fields("1,a 5\" board,x"), ["1", "a 5\" board", "x"]);
    assert_eq!(fields("12\" x 12\",y"), ["12\" x 12\"", "y"]);
    assert_eq!(fields("a\"b,\"c,d\",e"), ["a\"b", "c,d", "e"]);
    // Quoted fields: after a comma or spaces, `""` a quote, and text
    // after the closing quote kept (as Python's csv reads it).
    assert_eq!(fields("\"a,b\", \"c\"\"d\" ,\"\""), ["a,b", "c\"d", ""]);
    assert_eq!(fields("\"ab\"c\"d,e"), ["abc\"d", "e"]);
    assert_eq!(
        csv_field(b"x,y\"z,\"p,q\"", 2).as_deref(),
        Some(&b"p,q"[..])
    );
    assert_eq!(csv_field(b"x,y\"z,\"p,q\"", 3), None);
    // The records after a stray quote are all there, mapped, in chunks
    // and streamed, and the field after it is read.
    let data = format!("id,desc,puzzle\n1,a 5\" board,{P}\n2,12\" x 12\",{P}\n3,\"q\"\"\",{P}\n");
    let layout = InputFormat::Csv(CsvLayout { column: 2 });
    let d = detect_layout(data.as_bytes(), None, None).unwrap();
    assert_eq!(d.format, layout);
    let recs: Vec<(u64, bool)> = records(&data.as_bytes()[d.start..], 1, layout)
        .map(|r| (r.line, r.puzzle.is_ok()))
        .collect();
    assert_eq!(recs, [(1, true), (2, true), (3, true)]);
    let lines: Vec<u64> = csv_records(data.as_bytes(), 1)
        .iter()
        .map(|r| r.0)
        .collect();
    assert_eq!(lines, [1, 2, 3, 4]);
}

/// Reads `data` `step` bytes at a time.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Asserts `got == want`, showing the first difference only.
fn same_records<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        panic!("{what}: record {i}: {:?} against {:?}", got[i], want[i]);
    }
    assert_eq!(got.len(), want.len(), "{what}: records");
}

/// The CSV records of `data` read whole and streamed (numbered by data
/// row, as puzzles are, and by line, as verify's answers are): line,
/// whether the puzzle in `column` reads, and the text's first bytes.
fn csv_both_ways(data: &[u8], column: usize) -> [Vec<(u64, bool, Vec<u8>)>; 2] {
    let layout = InputFormat::Csv(CsvLayout { column });
    let brief =
        |(line, ok, raw): (u64, bool, &[u8])| (line, ok, raw[..raw.len().min(100)].to_vec());
    let whole: Vec<_> = records(data, 1, layout)
        .map(|r| brief((r.line, r.puzzle.is_ok(), r.raw)))
        .collect();
    // Reads of 4,093 bytes, so records and reads meet everywhere.
    let mut s = StreamChunks::new(Trickle { data, step: 4093 });
    s.top().unwrap();
    s.set_framing(Framing::Csv);
    s.number_rows_from(1);
    let mut streamed = Vec::new();
    while let Some(c) = s.next_chunk().unwrap() {
        assert!(c.data.len() <= STREAM_CHUNK + MAX_RECORD + 2);
        streamed.extend(
            records(&c.data, c.first_line, layout)
                .map(|r| brief((r.line, r.puzzle.is_ok(), r.raw))),
        );
    }
    same_records(&streamed, &whole, "numbered by row");
    let whole_lines: Vec<_> = csv_records(data, 1)
        .into_iter()
        .map(|(l, t)| brief((l, t.len() < MAX_RECORD, t)))
        .collect();
    let mut s = StreamChunks::new(data);
    s.top().unwrap();
    s.set_framing(Framing::Csv);
    let mut streamed_lines = Vec::new();
    while let Some(c) = s.next_chunk().unwrap() {
        streamed_lines.extend(
            csv_records(&c.data, c.first_line)
                .into_iter()
                .map(|(l, t)| brief((l, t.len() < MAX_RECORD, t))),
        );
    }
    same_records(&streamed_lines, &whole_lines, "numbered by line");
    [whole, whole_lines]
}

#[test]
fn long_csv_records_stream_as_they_read_mapped() {
    // Quoted fields of 100 KB with line ends in them, one of 2 MB
    // (malformed: a record over MAX_RECORD), one just under the limit,
    // a long comment record, and a long last record without a line end:
    // the same records streamed as mapped, none lost after them.
    let mut data = String::from("# top\n");
    let long_notes = "lorem, \"\"ipsum\"\"\n".repeat(7_000);
    let huge = "y\n".repeat(1 << 20);
    for i in 0..300 {
        let notes = match i {
            5 | 200 => format!("\"{long_notes}\""),
            50 => format!("\"{huge}\""),
            51 => "y".repeat(2 << 20),
            120 => "z".repeat(MAX_RECORD - 100),
            _ => "n".into(),
        };
        if i == 150 {
            data += &format!("#,\"{huge}\"\n");
        }
        if i == 160 {
            // Comment records of line ends alone, long and short.
            data += &format!("#,\"{}\"\n#,\"\n\n\"\n", "\n".repeat(MAX_RECORD + 5));
        }
        data += &format!("{i},{notes},{P}\n");
    }
    data += &format!("300,\"{huge}");
    let [rows, lines] = csv_both_ways(data.as_bytes(), 2);
    assert_eq!(rows.len(), 301);
    let bad: Vec<u64> = rows.iter().filter(|r| !r.1).map(|r| r.0).collect();
    assert_eq!(bad, [51, 52, 301], "over MAX_RECORD: malformed");
    assert_eq!(lines.len(), 301);
    let line_of = |id: usize| {
        let head = format!("{id},");
        lines
            .iter()
            .find(|l| l.2.starts_with(head.as_bytes()))
            .unwrap()
            .0
    };
    let long: Vec<u64> = lines.iter().filter(|l| !l.1).map(|l| l.0).collect();
    assert_eq!(long, [line_of(50), line_of(51), line_of(300)]);
    // The comment record spans 2^20 + 1 lines, row 50 as many.
    assert_eq!(line_of(150), line_of(149) + (1 << 20) + 2);
    assert_eq!(line_of(51), line_of(50) + (1 << 20) + 1);
    // A stray quote must not swallow records either, streamed.
    let data = format!("1,a 5\" board,{P}\n2,x,{P}\n");
    let [rows, _] = csv_both_ways(data.as_bytes(), 2);
    assert_eq!(rows.len(), 2);
}

#[test]
fn csv_records_may_span_lines_inside_quotes() {
    let data = b"a,b\n1,\"x\ny\",2\n\n3,\"\"\"q\"\"\",4\r\n5,\"open";
    let recs = csv_records(data, 1);
    let texts: Vec<(u64, &[u8])> = recs.iter().map(|(l, t)| (*l, *t)).collect();
    assert_eq!(
        texts,
        vec![
            (1, &b"a,b"[..]),
            (2, &b"1,\"x\ny\",2"[..]),
            (5, &b"3,\"\"\"q\"\"\",4"[..]),
            (6, &b"5,\"open"[..]),
        ]
    );
    // The unfinished last record is not counted, nor kept.
    let (n, end) = count_csv_records(data);
    assert_eq!(n, 3);
    assert_eq!(&data[end..], b"5,\"open");
    assert_eq!(csv_complete_prefix(data), end);
    assert_eq!(record_text_end(b"1,\"a\nb\"\nnext", true), 8);
    assert_eq!(record_text_end(b"1,\"a\nb\"\nnext", false), 5);
}
