//! `grade`: Sudoku Explainer's ratings. Puzzles that need each technique
//! get SE's ER/EP/ED (the reference values are SE's own, from
//! SukakuExplainer's serate with the SE 1.2.1 technique set); every step
//! of every path is true of the puzzle's solution; the command's output
//! forms and statuses; and with ../shared, agreement on SE-rated files.

mod common;

use batchdoku::puzzle::grid::Grid;
use batchdoku::solver::{FastSolver, Solver};
use batchdoku::tasks::grade::{grade, grade_path, rating_text, Board, Grade, Technique};
use batchdoku::Puzzle;
use common::{batchdoku, load_puzzles, sample_path, shared_datasets};

/// A puzzle whose hardest step is a forcing X-chain (SE 6.6).
const SE_RATED_CHAIN: &str =
    ".7..9.2.16..8......1.5.3.....5....96......832.8.......7...361.4.......23.....5.7.";

/// Puzzles whose hardest step is each technique, with SE's rating.
const SE_RATED: &[(&str, &str, Technique)] = &[
    (
        "34928.1758715.4.29265719384413.7529.92784351.6..19..3..843619.253692784119245.763",
        "1.0/1.0/1.0",
        Technique::FullHouse,
    ),
    (
        "..2...5.....9.4..73.......29...3.1...54.......3...86.5...61......9..5..1.61.82.5.",
        "1.2/1.2/1.2",
        Technique::HiddenSingle,
    ),
    (
        "..9...4.1.....9..37..53........752....1.2..6...6..1....5.4....6......3..43...7...",
        "1.5/1.2/1.2",
        Technique::HiddenSingle,
    ),
    (
        "..4...1.8........3..879...2...273...2...5..1....1..9...85.36.4..9.5.......3.1....",
        "1.7/1.2/1.2",
        Technique::DirectPointing,
    ),
    (
        "......89..1...36..29...4.3.5..6.....4..3...1...31.5.........74....51..69.....2..5",
        "2.0/1.2/1.2",
        Technique::DirectHiddenPair,
    ),
    (
        ".5.3..4.6.6..2.9.3....6..8.7.42........17....8...3..2...9......486............612",
        "2.3/1.2/1.2",
        Technique::NakedSingle,
    ),
    (
        "24.1........43.8...15......796.8.........7......9...2.8.....64.....95.........9.3",
        "2.5/1.2/1.2",
        Technique::DirectHiddenTriple,
    ),
    (
        "..8.1........3869..234......5..9..4...1...8.643....12.................82.7.5..3..",
        "2.6/1.2/1.2",
        Technique::Pointing,
    ),
    (
        "..7.283..81.4.......6........2....819.....7.....1.4.5....957..8....1..3.52.......",
        "2.8/1.2/1.2",
        Technique::Claiming,
    ),
    (
        "...25.4..78.....2...1.7...........4...516..9.....9.8.79.............63195.3....6.",
        "3.0/1.2/1.2",
        Technique::NakedPair,
    ),
    (
        "64.8.5.....9..63..1.......7...5..7.85.....1..9..482....86.........9..6..4..1.....",
        "3.2/1.2/1.2",
        Technique::XWing,
    ),
    (
        ".....78.31...9......24.31...6..7.....3.5...4.5....8.27...1.......5..9.3..27.....5",
        "3.4/1.2/1.2",
        Technique::HiddenPair,
    ),
    (
        ".....2.4...165.....4..7...24..3....7.6.....3......1..6...7...9..18........9...573",
        "3.6/1.2/1.2",
        Technique::NakedTriple,
    ),
    (
        "9......41.7.6.......4..8..3...3.9.7.7.........9.2.5......89.6.5.....6.3.35......7",
        "3.8/1.2/1.2",
        Technique::Swordfish,
    ),
    (
        "42.5.8....35........87...1.......78.18.6.7.....7.....6...2...9...4...3..2..91..64",
        "4.0/1.2/1.2",
        Technique::HiddenTriple,
    ),
    (
        "68......1.........9..736..5..42...36.7.8...9..6...4.....795..8........5....1.8...",
        "4.2/1.2/1.2",
        Technique::XyWing,
    ),
    (
        "2...6..597..4..3.......9..6.3...6....7...54....8.9..2........8..46.8...2..3...5..",
        "4.4/1.2/1.2",
        Technique::XyzWing,
    ),
    (
        ".1...2.3.7.3..8..4.......86..5..691.1.8.2...5..4......4....9.6.9..7..8.....8...7.",
        "4.5/1.2/1.2",
        Technique::UniqueRectangle,
    ),
    (
        ".7...14..8.4.......65.7...2...7........91..273....695...2....65...6.5..8..812....",
        "4.6/1.2/1.2",
        Technique::UniqueRectangle,
    ),
    (
        "....1.....38.....16.1.4.93582......7....3469............2.8.....9...37....35.7...",
        "4.6/1.2/1.2",
        Technique::UniqueLoop,
    ),
    (
        "...43..8.......6..7...5......8..9.2.....42...3.17.......92....4.64...2.91.......5",
        "4.7/1.2/1.2",
        Technique::UniqueRectangle,
    ),
    (
        "..3.912..19.3......8...69....7.....28.....36.631...4.85...1.......6.7.....6.82...",
        "5.0/1.2/1.2",
        Technique::NakedQuad,
    ),
    (
        "...9..56..4.3.........1.......6...4.7...43....1.8..2.3.....96...92.....83...76..9",
        "5.6/1.2/1.2",
        Technique::Bug,
    ),
    (
        "3......8......6..95.....3.1..18....3....3....2..714..5.5.4...9..49..7........2..8",
        "5.7/1.2/1.2",
        Technique::Bug,
    ),
    (
        "3....5.....6..951....61.9.........9...8.7...4...4..27......27..5.1.9..6......8..1",
        "6.2/1.2/1.2",
        Technique::AlignedPairExclusion,
    ),
    (
        ".........6.3.8..4..57....8...86..5..3..5..674....4...3.7....1..841.29........5...",
        "6.5/1.2/1.2",
        Technique::XCycle,
    ),
    (
        ".7..9.2.16..8......1.5.3.....5....96......832.8.......7...361.4.......23.....5.7.",
        "6.6/1.2/1.2",
        Technique::ForcingXChain,
    ),
    (
        ".13.....9..7968.4......2...5.6..1.....1.....37.92.......2..58......3.5.....1..9.6",
        "6.9/1.2/1.2",
        Technique::YCycle,
    ),
    (
        "9....8......47...9.516..4.....1..7.2.36...5.8..2.........72....2...8..35.8.5.1...",
        "7.1/1.2/1.2",
        Technique::Cycle,
    ),
    (
        "5.......8.9..6..5.48..9..3.6..7....5......8.4......1.29...72.8.8....3.....7.45...",
        "7.1/1.2/1.2",
        Technique::ForcingChain,
    ),
    (
        ".3.2...8.4.........795....65..3.1.7.....4..6532.....4...3...........79...56...4..",
        "7.5/1.2/1.2",
        Technique::AlignedTripletExclusion,
    ),
    (
        ".927...4....6...9.....49..2.5.2....6.8..93...2..58......4....3181.......5...2..67",
        "7.6/1.2/1.2",
        Technique::NishioForcingChains,
    ),
    (
        ".6.2..43.9..........5.4.87......8.....8..9.51...3..2...5.6.....7.....9....4.31...",
        "8.3/1.2/1.2",
        Technique::RegionForcingChains,
    ),
    (
        ".9...28.1.......3..3...5..........8..6.4.....54.3.9.6.......9.73..5...2..2.9.86..",
        "8.4/1.2/1.2",
        Technique::CellForcingChains,
    ),
    (
        "..7.6...3...2...6......9.4.9.65.3.7.2....13.....6......6.7...1.4.9.3..27.2.9.5...",
        "8.9/1.2/1.2",
        Technique::ContradictionForcingChains,
    ),
    (
        "...47.9.8..7.8...4...1.......1..3..5..4......32.....1..6..4.5.3...9.8....4..2...7",
        "8.9/1.2/1.2",
        Technique::DynamicCellForcingChains,
    ),
    (
        "..61......3....86......4.....15.3......4.152.3....8....7......64....57...58....14",
        "8.9/1.2/1.2",
        Technique::DynamicRegionForcingChains,
    ),
    (
        "....8....5.63......4...531...5....7...72.95...2.5..4...934...6.........8....17...",
        "9.0/1.2/1.2",
        Technique::DoubleForcingChains,
    ),
];

fn grid(line: &str) -> Grid {
    Grid::parse_line(line.as_bytes()).unwrap()
}

#[test]
fn each_technique_rates_as_sudoku_explainer_does() {
    let mut solver = FastSolver::new();
    for &(line, se, technique) in SE_RATED {
        match grade(&Puzzle::Givens(grid(line)), &mut solver, true) {
            Grade::Rated {
                er,
                ep,
                ed,
                hardest,
                steps,
            } => {
                let ours = format!(
                    "{}/{}/{}",
                    rating_text(er),
                    rating_text(ep),
                    rating_text(ed)
                );
                assert_eq!(ours, se, "{line}");
                assert_eq!(hardest, Some(technique), "{line}");
                let step = steps
                    .iter()
                    .find(|s| s.technique == technique && s.rating == er)
                    .expect("the ER step");
                // Chains say their links; a forcing chain's branches (one,
                // or one per candidate, place or state) end at what the
                // step concludes.
                let chain = (technique as usize) >= (Technique::XCycle as usize)
                    && technique != Technique::AlignedTripletExclusion;
                assert_eq!(!step.chains.is_empty(), chain, "{line}");
                let concludes = [
                    Technique::ForcingXChain,
                    Technique::ForcingChain,
                    Technique::CellForcingChains,
                    Technique::RegionForcingChains,
                    Technique::DoubleForcingChains,
                    Technique::DynamicCellForcingChains,
                    Technique::DynamicRegionForcingChains,
                ];
                if concludes.contains(&technique) {
                    for branch in &step.chains {
                        let &(cell, d, on) = branch.last().unwrap();
                        if on {
                            assert_eq!(step.placed, Some((cell, d)), "{line}");
                        } else {
                            assert!(step.eliminated.contains(&(cell, d)), "{line}");
                        }
                    }
                }
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}

/// Replays `steps` of a path on the puzzle's board, checking each against
/// the solution: placements are its digits, removals never are.
fn replay(
    line: &str,
    givens: &Grid,
    solution: &Grid,
    steps: &[batchdoku::tasks::grade::Step],
) -> Board {
    let mut board = Board::new(givens);
    for step in steps {
        if let Some((cell, d)) = step.placed {
            assert_eq!(solution.cells()[cell as usize], d, "{line}: {step:?}");
            assert!(
                board.has(cell, d),
                "{line}: places a removed digit: {step:?}"
            );
        }
        for &(cell, d) in &step.eliminated {
            assert_ne!(solution.cells()[cell as usize], d, "{line}: {step:?}");
        }
        assert!(
            step.placed.is_some() || step.eliminated.iter().any(|&(c, d)| board.has(c, d)),
            "{line}: a step that changes nothing: {step:?}"
        );
        step.apply(&mut board);
    }
    board
}

#[test]
fn every_step_of_every_path_is_true_of_the_solution() {
    let mut solver = FastSolver::new();
    let mut rated = 0;
    for givens in load_puzzles(&sample_path()) {
        let line = givens.to_line();
        let solution = solver.solve(&givens, 1).solution.unwrap();
        match grade(&Puzzle::Givens(givens), &mut solver, true) {
            Grade::Rated { steps, er, .. } => {
                rated += 1;
                let end = replay(&line, &givens, &solution, &steps);
                assert_eq!(end.grid(), solution, "{line}");
                assert_eq!(steps.iter().map(|s| s.rating).max(), Some(er));
            }
            Grade::Beyond { steps, er, .. } => {
                let end = replay(&line, &givens, &solution, &steps);
                assert!(!end.is_solved());
                assert_eq!(steps.iter().map(|s| s.rating).max().unwrap_or(0), er);
            }
            other => panic!("{line}: {other:?}"),
        }
    }
    assert!(rated > 1000, "{rated}");
}

#[test]
fn the_path_without_steps_rates_the_same() {
    let mut solver = FastSolver::new();
    for givens in load_puzzles(&sample_path()).into_iter().take(300) {
        let line = givens.to_line();
        let p = Puzzle::Givens(givens);
        let ratings = |g: Grade| match g {
            Grade::Rated { er, ep, ed, .. } => (er, Some(ep), Some(ed)),
            Grade::Beyond { er, ep, ed, .. } => (er, ep, ed),
            other => panic!("{other:?}"),
        };
        let with = ratings(grade(&p, &mut solver, true));
        let without = ratings(grade(&p, &mut solver, false));
        assert_eq!(with, without, "{line}");
    }
    // grade_path alone starts from any board.
    let g = grid(SE_RATED[0].0);
    assert!(matches!(
        grade_path(Board::new(&g), false),
        Grade::Rated { er: 10, .. }
    ));
}

/// A complete grid has a path of no steps: rated 0.0/0.0/0.0, with no
/// hardest technique (not the first one's name).
#[test]
fn a_complete_grid_rates_zero_with_no_hardest_technique() {
    let mut solver = FastSolver::new();
    let solved = solver
        .solve(&grid(SE_RATED[9].0), 1)
        .solution
        .expect("solvable");
    assert_eq!(
        grade(&Puzzle::Givens(solved), &mut solver, true),
        Grade::Rated {
            er: 0,
            ep: 0,
            ed: 0,
            hardest: None,
            steps: Vec::new(),
        }
    );
    let dir = tempfile::tempdir().unwrap();
    let path = common::write(dir.path(), "full.txt", format!("{}\n", solved.to_line()));
    let csv = common::stdout_of(
        batchdoku()
            .args(["grade", "-q", "--format", "csv"])
            .arg(&path),
    );
    assert_eq!(
        csv.lines().nth(1).unwrap(),
        format!("1,{},rated,0.0,0.0,0.0,", solved.to_line())
    );
}

#[test]
fn grade_writes_every_form_and_status() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{}\n{}\n{}\n{}\nnot a puzzle\n",
        SE_RATED[9].0,                                      // rated 3.0
        ".".repeat(81),                                     // multiple
        "12345678.........9".to_string() + &".".repeat(63), // unsolvable: r1c9 has no digit
        "11".to_string() + &".".repeat(79),                 // invalid
    );
    let path = common::write(dir.path(), "p.txt", &input);
    let line = common::stdout_of(batchdoku().args(["grade", "-q"]).arg(&path));
    assert_eq!(
        line,
        "3.0/1.2/1.2\nmultiple\nunsolvable\ninvalid\nmalformed\n"
    );
    let csv = common::stdout_of(
        batchdoku()
            .args(["grade", "-q", "--format", "csv"])
            .arg(&path),
    );
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "line,puzzle,status,er,ep,ed,hardest");
    assert_eq!(
        rows[1],
        format!("1,{},rated,3.0,1.2,1.2,Naked Pair", SE_RATED[9].0)
    );
    assert!(rows[2].ends_with(",multiple,,,,"), "{}", rows[2]);
    assert!(
        rows[5].starts_with("5,not a puzzle,malformed"),
        "{}",
        rows[5]
    );
    let jsonl = common::stdout_of(
        batchdoku()
            .args(["grade", "-q", "--format", "jsonl", "--steps"])
            .arg(&path),
    );
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["er"], 3.0);
    assert_eq!(first["hardest"], "Naked Pair");
    let steps = first["steps"].as_array().unwrap();
    assert!(steps.iter().any(|s| s["technique"] == "Naked Pair"
        && s["eliminate"].as_array().is_some_and(|e| !e.is_empty())));
    assert!(steps
        .iter()
        .all(|s| s["place"].is_string() || s["eliminate"].is_array()));
    // A chain's branches, as the links it stands on.
    let chain = common::stdout_of(
        batchdoku()
            .args(["grade", "-q", "--format", "jsonl", "--steps"])
            .write_stdin(format!("{}\n", SE_RATED_CHAIN)),
    );
    let record: serde_json::Value = serde_json::from_str(chain.trim()).unwrap();
    let step = record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["technique"] == "Forcing X-Chain")
        .expect("a forcing X-chain step");
    let branch = step["chains"][0].as_array().unwrap();
    let placed = step["place"].as_str().unwrap();
    assert_eq!(branch.last().unwrap(), placed);
    assert_eq!(
        branch[0].as_str().unwrap(),
        placed.replace('=', "<>"),
        "assumed false, it proves itself true"
    );
    // --steps needs jsonl; -o writes the file.
    batchdoku()
        .args(["grade", "--steps"])
        .arg(&path)
        .assert()
        .failure();
    let out = dir.path().join("out.txt");
    batchdoku()
        .args(["grade", "-q", "-j", "2", "-o"])
        .arg(&out)
        .arg(&path)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), line);
}

/// With ../shared: SE's ratings of se_rated_2198. Puzzles SE rates up to
/// 6.2, and up to 9.0, are rated identically (the targets are 99% and
/// 95%); no ER is more than 0.2 from SE's; a puzzle beyond the techniques
/// never claims more than SE.
#[test]
fn agreement_with_sudoku_explainer_on_the_shared_rated_set() {
    let Some(dir) = shared_datasets() else { return };
    let text = std::fs::read_to_string(dir.join("se_rated_2198.txt")).unwrap();
    let mut solver = FastSolver::new();
    // (puzzles SE rates up to 6.2, identical), then up to 9.0.
    let (mut easy, mut easy_same) = (0, 0);
    let (mut upto9, mut upto9_same, mut beyond_over) = (0, 0, 0);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (puzzle, se) = line.split_once(' ').unwrap();
        let se_er: f64 = se.split('/').next().unwrap().parse().unwrap();
        let g = grade(&Puzzle::Givens(grid(puzzle)), &mut solver, false);
        let same = match g {
            Grade::Rated { er, ep, ed, .. } => {
                let ours = format!(
                    "{}/{}/{}",
                    rating_text(er),
                    rating_text(ep),
                    rating_text(ed)
                );
                let diff = (er as f64 / 10.0 - se_er).abs();
                assert!(diff <= 0.2 + 1e-9, "{puzzle}: ours {ours}, SE {se}");
                ours == se.trim()
            }
            Grade::Beyond { er, .. } => {
                assert!(se_er > 8.9, "{puzzle}: beyond, SE {se}");
                beyond_over += usize::from(er as f64 / 10.0 > se_er + 1e-9);
                false
            }
            other => panic!("{puzzle}: {other:?}"),
        };
        if se_er <= 6.2 {
            easy += 1;
            easy_same += usize::from(same);
        }
        if se_er <= 9.0 {
            upto9 += 1;
            upto9_same += usize::from(same);
        }
    }
    assert!(easy > 1000 && upto9 > easy + 400, "{easy} {upto9}");
    assert!(
        easy_same * 100 >= easy * 99,
        "{easy_same} of {easy} identical"
    );
    assert!(
        upto9_same * 100 >= upto9 * 95,
        "{upto9_same} of {upto9} identical"
    );
    assert_eq!(beyond_over, 0);
}

/// A puzzle whose path needs more than dynamic forcing chains (SE: 11.1,
/// its first step already a nested chain) is beyond: no steps, no claim.
#[test]
fn a_puzzle_past_dynamic_chains_is_beyond() {
    let line = "98.7..6..75..4......3..8.7.5....7.3...94.........2.1..3.......1.9...5.8...52....6";
    let mut solver = FastSolver::new();
    match grade(&Puzzle::Givens(grid(line)), &mut solver, true) {
        Grade::Beyond { er, ep, ed, steps } => {
            assert!(er < 110 && ep.is_none() && ed.is_none(), "{er}");
            assert_eq!(steps.iter().map(|s| s.rating).max().unwrap_or(0), er);
        }
        other => panic!("{other:?}"),
    }
}

/// `--resume` keeps the whole records of an interrupted run's partial
/// output and grades from the next record, in every format; another run's
/// partial is refused.
#[cfg(unix)]
#[test]
fn resume_finishes_a_partial_output_without_losing_or_redoing_records() {
    use predicates::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let some: String = sample.lines().take(300).map(|l| format!("{l}\n")).collect();
    let f = common::write(dir.path(), "in.txt", &some);
    // 123 whole records and 5 bytes of the next.
    common::resume_round_trip("grade", &f, dir.path(), 300, 123, 5);
    // A partial made with other options is refused, with what differs.
    let out = dir.path().join("other.txt");
    let args = |steps: bool| -> Vec<std::ffi::OsString> {
        let mut a: Vec<std::ffi::OsString> =
            vec!["grade".into(), "--format".into(), "jsonl".into()];
        if steps {
            a.push("--steps".into());
        }
        a.extend([
            "-o".into(),
            out.clone().into(),
            f.clone().into(),
            "-".into(),
        ]);
        a
    };
    common::interrupt_while_reading_stdin(&args(false));
    batchdoku()
        .args(args(true))
        .arg("--resume")
        .write_stdin("")
        .assert()
        .failure()
        .stderr(predicate::str::contains("steps"));
}
