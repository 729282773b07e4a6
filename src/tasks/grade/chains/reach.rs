//! Which searches of the first chaining producer, and which cells of a
//! multiple chains pass, can find something, told on rows of bits.
//!
//! The producer searches from each candidate "on" for its own "off" (the
//! candidate is false) and for cycles back to it, and from each "off"
//! for its "on" (true), breadth first, over links that do not change
//! while a pass runs. Nearly every such search finds nothing (about 99
//! in 100 on minimal puzzles). Here the same breadth-first layers are
//! made on rows of bits, one bit per candidate of the board: each
//! candidate's row holds the "on"s its "on" implies two links on
//! (through an "off"), so a layer of "on"s is the OR of its members'
//! rows. That tells exactly whether a forcing chain's search finds its
//! target within its limit, and, for cycles, whether one could close: a
//! search that cannot find anything is not made. Each search asks in
//! turn, with its limits then. Where a pass makes the components of the
//! rows (below), what each start implies to the end is made with them,
//! and a forcing chain's search whose target is not there is told so
//! without its layers (most that find nothing run out of candidates to
//! reach, rather than reach their limit).
//!
//! A cycle must also remove something: its "on"s are all of one strongly
//! connected component of the rows (each implies the next), so a
//! component where no candidate sees an "on" and an "off" of its cycles'
//! digit spares the cycle searches of all its members (most, with Y
//! links; X cycles are cheaper than the test).
//!
//! Multiple forcing chains (8.0+) follow the same links (X and Y, the
//! board's) from each candidate of a cell "on", to the end, and compare
//! the sets reached. Where no contradiction is met a search reaches
//! everything its start implies, so the "on"s are the start's component
//! of the hops and every component that one reaches (one depth-first
//! walk makes them all, each after those it reaches), the "off"s those
//! "on"s' links. A cell whose sets meet nowhere is not searched: most
//! cells of such passes on hard puzzles. Of the others, the layers where
//! each start meets each conclusion tell how short a hint from the cell
//! can be: only the cells whose shortest could still come first are
//! searched (on 606 minimal puzzles rated 7.5-8.4, 1,845 of the
//! 16,228 cells that may conclude: one a pass).

use super::{Links, PerCandidate, Pot};
use crate::puzzle::grid::UNIT_CELLS;
use crate::tasks::grade::board::{
    bit, cells_of, digits, seen_by, units_of, Board, PEER_MASKS, UNIT_MASKS,
};

/// A set of the board's candidates, by their place in [`Reach::pots`].
type Bits = [u64; WORDS];
const WORDS: usize = 4;
/// The most candidates a board may have for the rows to be made; above
/// it every search is made.
const MOST: usize = WORDS * 64;

const EMPTY: Bits = [0; WORDS];

/// Never met.
const NEVER: u32 = u32::MAX;

fn or(a: &mut Bits, b: &Bits) {
    for (a, b) in a.iter_mut().zip(b) {
        *a |= b;
    }
}

/// What both pairs of rows hold.
fn both(a: &(Bits, Bits), b: &(Bits, Bits)) -> (Bits, Bits) {
    (both_of(&a.0, &b.0), both_of(&a.1, &b.1))
}

/// What both sets hold.
fn both_of(a: &Bits, b: &Bits) -> Bits {
    std::array::from_fn(|w| a[w] & b[w])
}

/// What `a` holds and `b` does not.
fn but_not(a: &Bits, b: &Bits) -> Bits {
    std::array::from_fn(|w| a[w] & !b[w])
}

/// The set of the first `n` places.
fn first_places(n: usize) -> Bits {
    std::array::from_fn(|w| match n.saturating_sub(w * 64) {
        0 => 0,
        k if k >= 64 => u64::MAX,
        k => (1 << k) - 1,
    })
}

/// Takes the first candidate out of `a`, if any.
fn take_first(a: &mut Bits) -> Option<usize> {
    let w = a.iter().position(|&word| word != 0)?;
    let i = a[w].trailing_zeros() as usize;
    a[w] &= a[w] - 1;
    Some(w * 64 + i)
}

/// True when `a` holds candidate `i`.
fn has(a: &Bits, i: usize) -> bool {
    a[i / 64] & (1 << (i % 64)) != 0
}

/// True when `a` and `b` share a candidate: every word's test OR-ed, one
/// branch (not one a word: the rows are read as vectors).
fn meets(a: &Bits, b: &Bits) -> bool {
    a.iter().zip(b).fold(0, |m, (a, b)| m | a & b) != 0
}

/// True when `a` holds no candidate (as [`meets`], one branch).
fn is_empty(a: &Bits) -> bool {
    a.iter().fold(0, |m, w| m | w) == 0
}

/// Adds candidate `i` to `a`, every word written: for the sets made on
/// the stack and soon read whole (as vectors), since a load is not
/// forwarded from a narrower store to the same bytes (`set`'s one-word
/// store there cost a sixth of [`Reach::close`], perf annotate). The
/// one-candidate set is read from [`ONE`]: two loads and two ORs.
fn add(a: &mut Bits, i: usize) {
    or(a, &ONE[i]);
}

/// `ONE[i]`: the set of candidate `i` alone.
static ONE: [Bits; MOST] = {
    let mut t = [EMPTY; MOST];
    let mut i = 0;
    while i < MOST {
        t[i][i / 64] = 1 << (i % 64);
        i += 1;
    }
    t
};

/// Takes out of `layer` the candidates already in `seen`, and adds the
/// rest to it: what a breadth-first layer newly meets.
fn keep_new(layer: &mut Bits, seen: &mut Bits) {
    for (l, s) in layer.iter_mut().zip(seen) {
        *l &= !*s;
        *s |= *l;
    }
}

/// Each set bit's place, in order.
fn places(a: Bits) -> Places {
    Places {
        words: a,
        word: 0,
        bits: a[0],
    }
}

/// The iterator of [`places`]: the set's words, the word being read and
/// its bits not yet given. The bits are a field of their own, not the
/// word's entry in the array: the array is read by a varying index, so it
/// stays in memory, and a bit taken out of it there was a store and a
/// load again per place (the iterator's loop is inlined into the
/// searches; the word's bits stay in a register).
struct Places {
    words: Bits,
    word: usize,
    bits: u64,
}

impl Iterator for Places {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            self.word += 1;
            if self.word >= WORDS {
                return None;
            }
            self.bits = self.words[self.word];
        }
        let i = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(self.word * 64 + i)
    }
}

/// The units of `cell` where digit `d` has two places or more and `cell`
/// is the first: those whose region chains a multiple chains pass makes
/// from `cell`.
fn regions_led_by(board: &Board, cell: u8, d: u8) -> impl Iterator<Item = usize> + '_ {
    units_of(cell).into_iter().filter(move |&u| {
        let places = board.positions(u, d);
        places.count_ones() >= 2 && UNIT_CELLS[u][places.trailing_zeros() as usize] == cell
    })
}

/// The rows of one pass's links, made when first asked for.
pub(super) struct Reach {
    /// The links (Y, X) the rows were made with, and whether the board's
    /// candidates fitted; `None` until made for the pass.
    made: Option<((bool, bool), bool)>,
    /// The candidates the rows were last made for (each digit's cells).
    made_for: [u128; 9],
    /// Per candidate (`cell * 9 + digit - 1`) of the board, its place
    /// among them (the board's other entries are stale, never read).
    place: PerCandidate<u8>,
    /// The board's candidates (as "on"s), in cell and digit order.
    pots: Vec<Pot>,
    /// How many of `pots` are the board's (after them, where the rows
    /// leave some out, the place standing for those).
    held: usize,
    /// Per candidate: the "on"s its "on" implies through one "off" (the
    /// first `pots.len()` entries; a place of a set is below [`MOST`], so
    /// reading a set's members here needs no bounds check).
    hops: Box<[Bits; MOST]>,
    /// Per candidate: the "on"s its "off" implies (as `hops`).
    strong: Box<[Bits; MOST]>,
    /// Everything each candidate's "on" implies (see [`Reach::implied`]),
    /// made when first asked for in a pass.
    closure: Closure,
    /// Per candidate, the "off"s its "on" implies (a link each), made
    /// when first asked for in a pass of multiple chains (the closure's
    /// sets and [`Reach::layers_from`] read it).
    weak: Box<[Bits; MOST]>,
    /// Whether `weak` is made for the pass.
    weak_made: bool,
    /// Per candidate, the layers a search from its "on" meets each
    /// candidate's "on" and "off" at, once told in a pass (those of
    /// `met_told`; the others hold what an earlier pass told, their
    /// room kept from pass to pass).
    met_at: Vec<MetAt>,
    /// The candidates whose `met_at` is told in this pass.
    met_told: Bits,
    /// The digits whose candidates the rows of a pass of X links alone
    /// hold (see [`Reach::forget_but`]).
    digits: u16,
}

/// Every digit (bit `d - 1`).
const ALL_DIGITS: u16 = 0x1ff;

/// The layer of a search from an "on" where each candidate's "on" (at
/// `[i]`) and "off" (at `[MOST + i]`) is first met, [`UNMET`] if never
/// (saturated at `UNMET - 1`, so never above the search's own), and
/// the candidates met in each state.
struct MetAt {
    layer: [u8; 2 * MOST],
    on: Bits,
    off: Bits,
}

/// A candidate-with-state a search never meets.
const UNMET: u8 = u8::MAX;

/// The strongly connected components of the hops (each component's
/// "on"s imply each other's), and what each candidate's "on" implies,
/// followed to the end: per component, the "on"s and the "off"s its
/// members imply.
struct Closure {
    /// `None` until made for the pass; then whether `off` was made too
    /// (multiple chains need it; cycles the components, forcing chains
    /// `on`).
    made: Option<bool>,
    /// Per candidate, its component.
    component: Vec<u16>,
    /// Per component, its members.
    members: Vec<Bits>,
    /// Per component, whether a cycle through its members may remove
    /// something (see [`Reach::cycle_may_remove`]), once told.
    cycle_removes: Vec<Option<bool>>,
    on: Vec<Bits>,
    off: Vec<Bits>,
    /// The walk that finds the components (a path-based search): its
    /// path, each candidate with the hops it has yet to follow; the
    /// candidates met whose component is open, in the order met; and
    /// those of them that may still head a component, each by its place
    /// there, with the candidates met before it and open then.
    path: Box<[(u8, Bits); MOST]>,
    open: Box<[u8; MOST]>,
    heads: Box<[(u8, Bits); MOST]>,
}

impl Closure {
    /// Every "on" candidate `a`'s "on" implies, itself too: its
    /// component's. Where the components are made (for cycles in a pass
    /// of Y links, or for multiple chains), a forcing chain's search
    /// whose target is not there meets it at no depth (most do not), and
    /// is told so without its layers.
    fn implied_on(&self, a: usize) -> Bits {
        self.on[self.component[a] as usize]
    }
}

impl Default for Closure {
    fn default() -> Closure {
        Closure {
            made: None,
            component: Vec::new(),
            members: Vec::new(),
            cycle_removes: Vec::new(),
            on: Vec::new(),
            off: Vec::new(),
            path: Box::new([(0, EMPTY); MOST]),
            open: Box::new([0; MOST]),
            heads: Box::new([(0, EMPTY); MOST]),
        }
    }
}

impl Reach {
    pub(super) fn new() -> Reach {
        Reach {
            made: None,
            made_for: [0; 9],
            place: PerCandidate::new(0),
            pots: Vec::new(),
            held: 0,
            hops: Box::new([EMPTY; MOST]),
            strong: Box::new([EMPTY; MOST]),
            closure: Closure::default(),
            weak: Box::new([EMPTY; MOST]),
            weak_made: false,
            met_at: Vec::new(),
            met_told: EMPTY,
            digits: ALL_DIGITS,
        }
    }

    /// To be called when a pass starts: the rows are made again, from
    /// its board and links, when next asked for.
    pub(super) fn forget(&mut self) {
        self.made = None;
        self.closure.made = None;
        self.digits = ALL_DIGITS;
    }

    /// Forgets the rows, as [`Reach::forget`], for a pass of X links
    /// alone that searches from the candidates of the `digits` only (bit
    /// `d - 1`): an X link joins two candidates of one digit, so no other
    /// digit's candidate is met, and the rows hold those digits' only.
    pub(super) fn forget_but(&mut self, digits: u16) {
        self.forget();
        self.digits = digits;
    }

    /// Forgets the rows unless they were made with both kinds of links
    /// for `board`'s candidates (for multiple chains, after the last pass
    /// of cycles and forcing chains on the same board).
    pub(super) fn forget_unless_made_for(&mut self, board: &Board) {
        let cands = board.candidate_cells();
        if self.made.is_some_and(|(kinds, _)| kinds == (true, true)) && self.made_for == cands {
            return;
        }
        self.forget();
    }

    /// False when multiple forcing chains (static, X and Y links) can
    /// conclude nothing from `cell` (of three candidates or more): the
    /// search from each of its digits on, and from each other place of
    /// a digit in a region where `cell` is the first, meets no
    /// contradiction (which would end its sets where it is met), and
    /// neither every digit's sets nor every place's meet where that
    /// would change the board. With the pass's `board` and `links`.
    pub(super) fn may_conclude(&mut self, board: &Board, links: &Links, cell: u8) -> bool {
        if !self.made(board, links, (true, true)) {
            return true;
        }
        if self.closure.made != Some(true) {
            self.close(links, true);
        }
        let mut every_digit: Option<(Bits, Bits)> = None;
        for d in digits(board.cands(cell)) {
            let Some(own) = self.implied(cell, d) else {
                return true;
            };
            for u in regions_led_by(board, cell, d) {
                let mut every_place = own;
                for other in cells_of(board.cells_with(d) & UNIT_MASKS[u] & !(1 << cell)) {
                    let Some(implied) = self.implied(other, d) else {
                        return true;
                    };
                    every_place = both(&every_place, &implied);
                }
                if self.concludes(board, &every_place) {
                    return true;
                }
            }
            every_digit = Some(match every_digit {
                None => own,
                Some(before) => both(&before, &own),
            });
        }
        every_digit.is_some_and(|every| self.concludes(board, &every))
    }

    /// The fewest nodes the multiple forcing chains (static, X and Y
    /// links) from `cell` can rest on: (its cell chains, its region
    /// chains, each `u32::MAX` if it has none), told on the rows; `None`
    /// where the rows do not fit the board. A hint's length is how many
    /// distinct nodes its branches' conclusions rest on, each branch at
    /// least the nodes of the shortest chain from its start to the
    /// conclusion (its layer + 1), and the searches' sets (cut short at a
    /// contradiction) hold no more than these layers meet: so no hint
    /// from `cell` is shorter. Asked after [`Reach::may_conclude`], with
    /// the pass's `board` and `links`.
    pub(super) fn least_lengths(
        &mut self,
        board: &Board,
        links: &Links,
        cell: u8,
    ) -> Option<(u32, u32)> {
        if !self.made(board, links, (true, true)) {
            return None;
        }
        // (At most nine starts: a cell's digits, a region's places.)
        let mut starts = [0usize; 9];
        let mut n = 0;
        for d in digits(board.cands(cell)) {
            starts[n] = self.place_of(Pot::new(cell, d, true));
            n += 1;
        }
        let by_cell = self.least_length(board, links, &starts[..n]);
        let mut by_region = u32::MAX;
        for d in digits(board.cands(cell)) {
            for u in regions_led_by(board, cell, d) {
                let mut n = 0;
                for c in cells_of(board.cells_with(d) & UNIT_MASKS[u]) {
                    starts[n] = self.place_of(Pot::new(c, d, true));
                    n += 1;
                }
                by_region = by_region.min(self.least_length(board, links, &starts[..n]));
            }
        }
        Some((by_cell, by_region))
    }

    /// The fewest nodes a conclusion that every start's "on" implies
    /// (one changing the board) rests on, summed over the starts as the
    /// layers tell them; `u32::MAX` if there is none.
    fn least_length(&mut self, board: &Board, links: &Links, starts: &[usize]) -> u32 {
        let (mut on, mut off) = ([u64::MAX; WORDS], [u64::MAX; WORDS]);
        for &a in starts {
            let met = self.layers_from(links, a);
            on = both_of(&on, &met.on);
            off = both_of(&off, &met.off);
        }
        let sum = |i: usize, this: &Reach| -> u32 {
            starts
                .iter()
                .map(|&a| u32::from(this.met_at[a].layer[i]) + 1)
                .sum()
        };
        let mut least = u32::MAX;
        for i in places(on) {
            let p = self.pots[i];
            if board.cands(p.cell()) != bit(p.digit()) {
                least = least.min(sum(i, self));
            }
        }
        for i in places(off) {
            least = least.min(sum(MOST + i, self));
        }
        least
    }

    /// The layers a search from candidate `a`'s "on" meets each
    /// candidate-with-state at (breadth first over the pass's links: the
    /// "off"s of a layer of "on"s one layer on, the "on"s a hop away two
    /// layers on), made once in a pass.
    fn layers_from(&mut self, links: &Links, a: usize) -> &MetAt {
        self.make_weak(links);
        if self.met_at.len() <= a {
            self.met_at.resize_with(a + 1, || MetAt {
                layer: [UNMET; 2 * MOST],
                on: EMPTY,
                off: EMPTY,
            });
        }
        if !has(&self.met_told, a) {
            add(&mut self.met_told, a);
            let met = &mut self.met_at[a];
            met.layer = [UNMET; 2 * MOST];
            let mut layer = EMPTY;
            add(&mut layer, a);
            let (mut seen_on, mut seen_off) = (layer, EMPTY);
            let mut at = 0u32;
            loop {
                let here = at.min(u32::from(UNMET) - 1) as u8;
                let (mut offs, mut next) = (EMPTY, EMPTY);
                for i in places(layer) {
                    met.layer[i] = here;
                    or(&mut offs, &self.weak[i]);
                    or(&mut next, &self.hops[i]);
                }
                keep_new(&mut offs, &mut seen_off);
                let there = (at + 1).min(u32::from(UNMET) - 1) as u8;
                for i in places(offs) {
                    met.layer[MOST + i] = there;
                }
                keep_new(&mut next, &mut seen_on);
                if is_empty(&next) {
                    break;
                }
                layer = next;
                at += 2;
            }
            met.on = seen_on;
            met.off = seen_off;
        }
        &self.met_at[a]
    }

    /// Makes `weak` for the pass (X and Y links), if not made.
    fn make_weak(&mut self, links: &Links) {
        if !self.weak_made {
            for b in 0..self.pots.len() {
                self.weak[b] = self.implying_off(links, true, b);
            }
            self.weak_made = true;
        }
    }

    /// What candidate `d` of `cell`, on, implies: the "on"s and the
    /// "off"s a search from it reaches; `None` where those meet (a
    /// candidate both on and off: a contradiction).
    fn implied(&self, cell: u8, d: u8) -> Option<(Bits, Bits)> {
        let a = self.place_of(Pot::new(cell, d, true));
        let k = self.closure.component[a] as usize;
        let (on, off) = (self.closure.on[k], self.closure.off[k]);
        (!meets(&on, &off)).then_some((on, off))
    }

    /// True when some candidate of `implied` would be a conclusion that
    /// changes `board`: an "off" removes its candidate, an "on" the
    /// cell's others.
    fn concludes(&self, board: &Board, (on, off): &(Bits, Bits)) -> bool {
        !is_empty(off)
            || places(*on).any(|i| {
                let p = self.pots[i];
                board.cands(p.cell()) != bit(p.digit())
            })
    }

    /// Makes [`Closure`] from the hops: the components (a path-based
    /// search, whose order completes a component only after those it
    /// reaches), and with `sets` what each implies, by OR-ing theirs into
    /// its own.
    fn close(&mut self, links: &Links, sets: bool) {
        let n = self.pots.len();
        if sets {
            self.make_weak(links);
        }
        // (The fields apart: the rows are read while it is made.)
        let Reach {
            closure: c,
            hops,
            weak,
            ..
        } = self;
        c.made = Some(sets);
        c.component.clear();
        c.component.resize(n, u16::MAX);
        c.members.clear();
        c.cycle_removes.clear();
        c.on.clear();
        c.off.clear();
        // The candidates met, and those met whose component is still
        // open. The walk goes depth first. A candidate with a hop back to
        // an open candidate met before some head (a candidate that may
        // head a component) is in one component with that head: the
        // heads met since are dropped. Those hops are told when the
        // candidate is met; its other hops go to candidates met after it
        // (no concern) or not met yet (followed).
        let (mut met, mut unclosed) = (EMPTY, EMPTY);
        // The lengths of the walk's stacks (each candidate enters each
        // once: arrays of `MOST`, no room to check for).
        let (mut path, mut open, mut heads) = (0, 0, 0);
        for root in 0..n {
            if has(&met, root) {
                continue;
            }
            let mut next = Some(root);
            loop {
                if let Some(w) = next.take() {
                    let before = unclosed;
                    add(&mut met, w);
                    add(&mut unclosed, w);
                    let hops = hops[w];
                    let back = both_of(&hops, &before);
                    c.heads[heads] = (open as u8, before);
                    heads += 1;
                    c.open[open] = w as u8;
                    open += 1;
                    while heads > 0 && meets(&c.heads[heads - 1].1, &back) {
                        heads -= 1;
                    }
                    let rest = but_not(&hops, &met);
                    c.path[path] = (w as u8, rest);
                    path += 1;
                }
                if path == 0 {
                    break;
                }
                let (v, rest) = &mut c.path[path - 1];
                let v = *v;
                // Only hops to candidates not met yet are followed.
                for (r, m) in rest.iter_mut().zip(&met) {
                    *r &= !m;
                }
                if let Some(w) = take_first(rest) {
                    next = Some(w);
                    continue;
                }
                path -= 1;
                let at = match heads.checked_sub(1).map(|h| c.heads[h]) {
                    Some((at, before)) if c.open[at as usize] == v => {
                        heads -= 1;
                        unclosed = before;
                        at as usize
                    }
                    _ => continue,
                };
                // `v` heads a component: the open candidates met since.
                let k = c.members.len();
                let (mut members, mut off, mut next) = (EMPTY, EMPTY, EMPTY);
                for &m in &c.open[at..open] {
                    let m = m as usize;
                    c.component[m] = k as u16;
                    add(&mut members, m);
                    or(&mut next, &hops[m]);
                    if sets {
                        or(&mut off, &weak[m]);
                    }
                }
                open = at;
                c.members.push(members);
                c.cycle_removes.push(None);
                let mut on = members;
                // The components it reaches are complete; one met already
                // is in another's closure, with all it implies: each
                // closure OR-ed in is taken out of those left to reach.
                let mut rest = but_not(&next, &members);
                while let Some(w) = take_first(&mut rest) {
                    let j = c.component[w] as usize;
                    or(&mut on, &c.on[j]);
                    rest = but_not(&rest, &c.on[j]);
                    if sets {
                        or(&mut off, &c.off[j]);
                    }
                }
                c.on.push(on);
                if sets {
                    c.off.push(off);
                }
            }
        }
    }

    /// Whether the search from `start` for its own candidate in the
    /// other state (a forcing chain) finds it with this `limit`: when it
    /// meets it at a layer below the limit, as the searches count layers
    /// (the start is layer 0, the nodes it links to layer 1, ...). With
    /// the pass's `board` and `links` (`y`; X links always, as forcing
    /// chains need them). `None` where the board has too many candidates
    /// for the rows (not known: the search must be made).
    pub(super) fn finds(
        &mut self,
        board: &Board,
        links: &Links,
        y: bool,
        start: Pot,
        limit: u32,
    ) -> Option<bool> {
        if !self.made(board, links, (y, true)) {
            return None;
        }
        let a = self.place_of(start);
        let met = if start.on() {
            self.own_off_layer(links, y, a, limit)
        } else {
            self.own_on_layer(a, limit)
        };
        Some(met < limit)
    }

    /// False when no cycle through `start` (an "on") of at most `limit`
    /// nodes can exist, with the pass's `board` and `links` (`kinds`: Y,
    /// X). A cycle search closes a cycle when an "on" it meets links
    /// to the "off" of one of the start's partners (the "on"s its "off"
    /// implies), an "off" the start's own first layer holds, and that
    /// "on" was not met through that same "off": so some "on" linking to
    /// the partner's "off" must be met from the start's other first
    /// "off"s, at most `limit - 2` layers out.
    pub(super) fn may_cycle(
        &mut self,
        board: &Board,
        links: &Links,
        kinds: (bool, bool),
        start: Pot,
        limit: u32,
    ) -> bool {
        if limit < 4 {
            // A cycle has four nodes or more.
            return false;
        }
        if !self.made(board, links, kinds) {
            return true;
        }
        let y = kinds.0;
        let s = self.place_of(start);
        let firsts = links.offs_of_on(start, y);
        for q in places(self.strong[s]) {
            let mut seen = EMPTY;
            add(&mut seen, s);
            let mut layer = EMPTY;
            for &b in firsts {
                let b = self.place_of(b);
                if b != q {
                    or(&mut layer, &self.strong[b]);
                }
            }
            keep_new(&mut layer, &mut seen);
            let partner = self.implying_off(links, y, q);
            if self.layers(layer, seen, &partner, 2, limit - 1) != NEVER {
                return true;
            }
        }
        false
    }

    /// The most nodes a cycle that a search from `start` (an "on")
    /// closes can have, with the pass's `board` and `links` (`kinds`: Y,
    /// X): `u32::MAX` where the board has too many candidates for the
    /// rows. A cycle closes on an "off" of one of the start's partners
    /// (the "on"s its "off" implies), reached from an "on" that links to
    /// it: from an "on" met `k` hops out (layer `2k`), the cycle has
    /// `2k + 2` nodes. So past the layer of the last such "on" the search
    /// meets, no cycle closes, and a search for cycles alone may stop
    /// there, where the rows' breadth-first layers (the search's own)
    /// say it is.
    pub(super) fn longest_cycle(
        &mut self,
        board: &Board,
        links: &Links,
        kinds: (bool, bool),
        start: Pot,
    ) -> u32 {
        if !self.made(board, links, kinds) {
            return u32::MAX;
        }
        let y = kinds.0;
        let s = self.place_of(start);
        // The "on"s that link to a partner's "off".
        let mut closing = EMPTY;
        for q in places(self.strong[s]) {
            or(&mut closing, &self.implying_off(links, y, q));
        }
        let mut layer = EMPTY;
        add(&mut layer, s);
        let mut seen = layer;
        let (mut at, mut last) = (0, None);
        loop {
            if meets(&layer, &closing) {
                last = Some(at);
            }
            let mut next = EMPTY;
            for i in places(layer) {
                or(&mut next, &self.hops[i]);
            }
            keep_new(&mut next, &mut seen);
            if is_empty(&next) {
                break;
            }
            layer = next;
            at += 2;
        }
        last.map_or(0, |at| at + 2)
    }

    /// False when no cycle through `start` (an "on") can remove
    /// anything, with the pass's `board` and `links` (`kinds`: Y, X).
    /// Each "on" of a cycle implies the next one two links on (a hop),
    /// and the last the start: they are all of the start's component of
    /// the hops, and each "off" of the cycle lies between two of them. A
    /// cycle removes the candidates outside it that see one of its "on"s
    /// and one of its "off"s of their digit: where no candidate sees an
    /// "on" of the component and such an "off" of the same digit, no
    /// cycle through any of its members removes anything (most
    /// components, on minimal and hardest puzzles alike). Told once per
    /// component.
    pub(super) fn cycle_may_remove(
        &mut self,
        board: &Board,
        links: &Links,
        kinds: (bool, bool),
        start: Pot,
    ) -> bool {
        if !self.made(board, links, kinds) {
            return true;
        }
        if self.closure.made.is_none() {
            self.close(links, false);
        }
        let k = self.closure.component[self.place_of(start)] as usize;
        if let Some(told) = self.closure.cycle_removes[k] {
            return told;
        }
        let members = self.closure.members[k];
        // A cycle's "on"s are two or more (each after an "off"), and a
        // search meets none twice but the start.
        if members.iter().map(|w| w.count_ones()).sum::<u32>() < 2 {
            self.closure.cycle_removes[k] = Some(false);
            return false;
        }
        // Per digit, the cells of the component's "on"s and of the "off"s
        // between two of them (implied by one, implying one).
        //
        // An "off" implying an "on" of the component is a strong partner
        // of it (the links are the same both ways): one of the members'
        // rows of strong links (not the place standing for the candidates
        // the rows leave out, which implies nothing). It is implied by an
        // "on" of the component where it sees one of its digit, or (Y
        // links) shares a cell with one of another digit.
        let mut on_cells = [0u128; 9];
        let mut member_digits = [0u16; 81];
        let mut partners = EMPTY;
        for i in places(members) {
            let p = self.pots[i];
            on_cells[p.digit() as usize - 1] |= 1 << p.cell();
            member_digits[p.cell() as usize] |= bit(p.digit());
            or(&mut partners, &self.strong[i]);
        }
        let held = first_places(self.held);
        let mut off_cells = [0u128; 9];
        for b in places(both_of(&partners, &held)) {
            let q = self.pots[b];
            let (cell, d) = (q.cell() as usize, q.digit());
            if PEER_MASKS[cell] & on_cells[d as usize - 1] != 0
                || (kinds.0 && member_digits[cell] & !bit(d) != 0)
            {
                off_cells[d as usize - 1] |= 1 << cell;
            }
        }
        let told = (1..=9u8).any(|d| {
            let (on, off) = (on_cells[d as usize - 1], off_cells[d as usize - 1]);
            on != 0 && off != 0 && seen_by(on) & seen_by(off) & board.cells_with(d) != 0
        });
        self.closure.cycle_removes[k] = Some(told);
        told
    }

    /// Makes the rows if not made for this pass; false if the board's
    /// candidates do not fit them. (Asked about a million times on the
    /// first 2,000 minimal puzzles, the rows made a few thousand times:
    /// the test is inlined, the making is not.)
    #[inline]
    fn made(&mut self, board: &Board, links: &Links, kinds: (bool, bool)) -> bool {
        match self.made {
            Some((made, fits)) if made == kinds => fits,
            _ => self.make(board, links, kinds),
        }
    }

    /// Makes the rows for [`Reach::made`].
    #[inline(never)]
    fn make(&mut self, board: &Board, links: &Links, kinds: (bool, bool)) -> bool {
        let fits = self.rows(board, links, kinds);
        self.made = Some((kinds, fits));
        self.made_for = board.candidate_cells();
        self.closure.made = None;
        self.weak_made = false;
        self.met_told = EMPTY;
        fits
    }

    /// Makes the rows of `board`'s candidates; false if there are more
    /// than [`MOST`].
    ///
    /// With Y links alone, a strong link is a bivalue cell's, so every
    /// "on" but a start's is met there and every start is one: the rows
    /// hold only the bivalue cells' candidates; with X links alone, those
    /// of the digits searched (see [`Reach::forget_but`]). One more place,
    /// with empty rows, stands for all the others (a link there leads
    /// nowhere).
    fn rows(&mut self, board: &Board, links: &Links, (y, x): (bool, bool)) -> bool {
        self.pots.clear();
        let bivalue_only = y && !x;
        // The digits held (with Y links, every one).
        let held = if y { ALL_DIGITS } else { self.digits };
        let some_only = bivalue_only || held != ALL_DIGITS;
        for cell in 0..81u8 {
            let cands = board.cands(cell);
            if bivalue_only && cands.count_ones() != 2 {
                continue;
            }
            for d in digits(cands & held) {
                if self.pots.len() == MOST {
                    return false;
                }
                self.place[cell as usize * 9 + d as usize - 1] = self.pots.len() as u8;
                self.pots.push(Pot::new(cell, d, true));
            }
        }
        let n = self.pots.len();
        self.held = n;
        if some_only {
            if n == MOST {
                return false;
            }
            for cell in 0..81u8 {
                let cands = board.cands(cell);
                let left = if bivalue_only && cands.count_ones() != 2 {
                    cands
                } else {
                    cands & !held
                };
                for d in digits(left) {
                    self.place[cell as usize * 9 + d as usize - 1] = n as u8;
                }
            }
        }
        // (The fields apart: the rows are written while it reads.)
        let place = |p: Pot| self.place[p] as usize;
        // (Each row made whole: see `add`.)
        for (row, &on) in self.strong.iter_mut().zip(&self.pots) {
            *row = EMPTY;
            for &q in links.ons_of_off(on.flipped(), y, x) {
                add(row, place(q));
            }
        }
        // A hop is a link to an "off" then a strong link on: made from
        // each strong link back to the "on"s that imply its "off" (the
        // same candidates as its "on" implies the "off"s of), since most
        // "off"s lead nowhere.
        self.hops[..n].fill(EMPTY);
        for b in 0..n {
            let strong = self.strong[b];
            if is_empty(&strong) {
                continue;
            }
            for &q in links.offs_of_on(self.pots[b], y) {
                let a = place(q);
                if a < n {
                    or(&mut self.hops[a], &strong);
                }
            }
        }
        if some_only {
            // The place of the others: a candidate of no link.
            self.pots.push(Pot::new(0, 1, true));
            self.strong[n] = EMPTY;
            self.hops[n] = EMPTY;
        }
        true
    }

    /// From candidate `a` "on": the layer where its "off" is met. Layer
    /// 2k holds the "on"s first met after k hops, and the "off" comes a
    /// layer after the first of them that implies it.
    fn own_off_layer(&self, links: &Links, y: bool, a: usize, layers: u32) -> u32 {
        let target = self.implying_off(links, y, a);
        if self.closure.made.is_some() && !meets(&self.closure.implied_on(a), &target) {
            return NEVER;
        }
        let mut seen = EMPTY;
        add(&mut seen, a);
        self.layers(seen, seen, &target, 1, layers)
    }

    /// The candidates whose "on" implies candidate `a`'s "off": those
    /// whose "off"s its "on" implies (the links are the same both ways).
    fn implying_off(&self, links: &Links, y: bool, a: usize) -> Bits {
        let mut row = EMPTY;
        for &q in links.offs_of_on(self.pots[a], y) {
            add(&mut row, self.place_of(q));
        }
        row
    }

    /// A candidate's place among the board's (see `place`).
    fn place_of(&self, p: Pot) -> usize {
        self.place[p] as usize
    }

    /// From candidate `a` "off": the layer where its "on" is met. Layer 1
    /// holds the "on"s the "off" implies, then every other layer the
    /// "on"s first met one hop further.
    fn own_on_layer(&self, a: usize, layers: u32) -> u32 {
        let first = self.strong[a];
        if self.closure.made.is_some()
            && places(first).all(|b| !has(&self.closure.implied_on(b), a))
        {
            return NEVER;
        }
        let mut target = EMPTY;
        add(&mut target, a);
        self.layers(first, first, &target, 1, layers)
    }

    /// Hop by hop from `layer` (the "on"s met so far, `seen`): the layer
    /// number where `layer` first meets `target`, counting from
    /// `at`, two layers a hop.
    fn layers(
        &self,
        mut layer: Bits,
        mut seen: Bits,
        target: &Bits,
        mut at: u32,
        layers: u32,
    ) -> u32 {
        while at < layers {
            if meets(&layer, target) {
                return at;
            }
            let mut next = EMPTY;
            for (w, mut word) in layer.into_iter().enumerate() {
                while word != 0 {
                    let c = w * 64 + word.trailing_zeros() as usize;
                    or(&mut next, &self.hops[c]);
                    word &= word - 1;
                }
            }
            keep_new(&mut next, &mut seen);
            if is_empty(&next) {
                break;
            }
            layer = next;
            at += 2;
        }
        NEVER
    }
}

#[cfg(test)]
mod tests {
    use super::super::{forcing_from_off, Chains, PASSES};
    use super::*;
    use crate::puzzle::grid::Grid;
    use crate::tasks::grade::test_boards::each_thinned;

    #[test]
    fn first_places_hold_exactly_the_first_n() {
        for n in 0..=MOST {
            let set = first_places(n);
            assert_eq!(
                places(set).collect::<Vec<_>>(),
                (0..n).collect::<Vec<_>>(),
                "{n}"
            );
        }
    }

    /// What the rows say is what the searches find, from every candidate
    /// of sample boards (whole, and thinned to fewer candidates), with
    /// each pass's links and limits from the shortest to none: `finds`
    /// exactly as a forcing chain's search (from "on" and from "off"),
    /// `may_cycle` false only where the cycle search finds no cycle, and
    /// the search cut at `longest_cycle` finding the cycle it finds uncut.
    /// On a board with more candidates than the rows hold, every search
    /// is made (but with Y links alone, whose rows hold only the bivalue
    /// cells' candidates, and whose searches start only there; with X
    /// links alone, the rows hold all digits but one, as a pass does
    /// where one digit is quiet).
    #[test]
    fn rows_say_what_the_searches_find() {
        let mut chains = Chains::new();
        let mut reach = Reach::new();
        let mut counts = [0u32; 7];
        let mut check = |line: &str, board: &Board| {
            let [found, not_found, cycles, ruled_out, removing_none, cut_short, too_many] =
                &mut counts;
            let whole = (0..81u8)
                .map(|c| board.cands(c).count_ones() as usize)
                .sum::<usize>()
                > MOST;
            *too_many += whole as u32;
            chains.links.build(board);
            // X links alone: the rows of all digits but one (changing
            // with the board), searched from those digits only.
            let left_out = 1u16 << (line.len() % 9);
            let held: usize = (0..81u8)
                .map(|c| (board.cands(c) & !left_out).count_ones() as usize)
                .sum();
            for (y, x) in PASSES {
                // Y links alone: from bivalue cells only, as the pass
                // searches, and the rows (of those cells) always fit.
                let (whole, searched) = match (y, x) {
                    (false, _) => {
                        reach.forget_but(ALL_DIGITS & !left_out);
                        (held >= MOST, ALL_DIGITS & !left_out)
                    }
                    _ => {
                        reach.forget();
                        (whole && x, ALL_DIGITS)
                    }
                };
                for cell in 0..81u8 {
                    if !x && board.cands(cell).count_ones() != 2 {
                        continue;
                    }
                    for d in digits(board.cands(cell) & searched) {
                        let start = Pot::new(cell, d, true);
                        let at = format!("{line}, links {y} {x}, r{cell}d{d}");
                        for limit in [2, 3, 4, 5, 6, 7, 10, 15, u32::MAX] {
                            if x {
                                chains.arena.clear();
                                let limits = (0, limit);
                                let on = chains.cycles(board, start, (y, x), limits, &mut None);
                                let rows = reach.finds(board, &chains.links, y, start, limit);
                                let expected = (!whole).then_some(on.is_some());
                                assert_eq!(rows, expected, "{at} on, limit {limit}");
                                let off = forcing_from_off(
                                    &mut chains.tree,
                                    &mut chains.arena,
                                    &mut chains.scratch,
                                    &chains.links,
                                    start.flipped(),
                                    y,
                                    limit,
                                );
                                let from = start.flipped();
                                let rows = reach.finds(board, &chains.links, y, from, limit);
                                let expected = (!whole).then_some(off.is_some());
                                assert_eq!(rows, expected, "{at} off, limit {limit}");
                                *found += on.is_some() as u32 + off.is_some() as u32;
                                *not_found += on.is_none() as u32 + off.is_none() as u32;
                            }
                            if limit >= 4 {
                                chains.arena.clear();
                                let mut cycle = None;
                                chains.cycles(board, start, (y, x), (limit, 0), &mut cycle);
                                if !reach.may_cycle(board, &chains.links, (y, x), start, limit) {
                                    assert!(cycle.is_none() && !whole, "{at} cycle, limit {limit}");
                                    *ruled_out += 1;
                                }
                                if !reach.cycle_may_remove(board, &chains.links, (y, x), start) {
                                    assert!(
                                        cycle.is_none() && !whole,
                                        "{at} removes, limit {limit}"
                                    );
                                    *removing_none += 1;
                                }
                                // Cut at the last layer where one can close,
                                // the search finds the same first cycle.
                                let longest =
                                    reach.longest_cycle(board, &chains.links, (y, x), start);
                                let found = cycle.map(|(id, removed)| (chains.branch(id), removed));
                                if longest < limit {
                                    chains.arena.clear();
                                    let mut cut = None;
                                    chains.cycles(board, start, (y, x), (longest, 0), &mut cut);
                                    let cut = cut.map(|(id, removed)| (chains.branch(id), removed));
                                    assert_eq!(cut, found, "{at} longest {longest}, limit {limit}");
                                    assert!(!whole, "{at}");
                                    *cut_short += 1;
                                }
                                *cycles += found.is_some() as u32;
                            }
                        }
                    }
                }
            }
        };
        for (line, board, _) in crate::tasks::grade::test_boards::sample(3) {
            check(line, &board);
        }
        // Seventeen givens: more candidates than the rows hold.
        let line =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000";
        check(
            line,
            &Board::new(&Grid::parse_line(line.as_bytes()).unwrap()),
        );
        each_thinned(8, 3, 3, 7, |line, _, board, _| check(line, board));
        let [found, not_found, cycles, ruled_out, removing_none, cut_short, too_many] = counts;
        assert!(
            found > 500
                && not_found > 5_000
                && cycles > 50
                && ruled_out > 5_000
                && removing_none > 20_000
                && cut_short > 5_000
                && too_many > 0,
            "{counts:?}"
        );
    }

    /// What `implied` says a candidate's "on" implies is what the multiple
    /// chains' search from it reaches, and `None` exactly where that
    /// search meets a contradiction; a cell `may_conclude` rules out
    /// gives no hint. On the boards of sample paths where multiple
    /// chains are searched (the next step rates 8.0 or more), and sample
    /// boards thinned.
    #[test]
    fn closures_are_what_the_multiple_search_reaches() {
        use super::super::{MULTIPLE, VALUE_OFF, VALUE_ON};
        use crate::tasks::grade::{next_step, PathMemory, Rating};
        let mut chains = Chains::new();
        let mut reach = Reach::new();
        let [mut contradictions, mut closures, mut ruled_out, mut searched] = [0u32; 4];
        let mut check = |line: &str, board: &Board| {
            chains.links.build(board);
            reach.forget();
            if !reach.made(board, &chains.links, (true, true)) {
                return;
            }
            reach.close(&chains.links, true);
            for cell in 0..81u8 {
                for d in digits(board.cands(cell)) {
                    chains.arena.clear();
                    chains.remembered.forget();
                    let on = Pot::new(cell, d, true);
                    let absurd = chains.chain_from_on(board, on, VALUE_ON, VALUE_OFF, MULTIPLE);
                    let at = format!("{line} r{cell}d{d}");
                    let Some((ons, offs)) = reach.implied(cell, d) else {
                        assert!(absurd.is_some(), "{at}: no contradiction met");
                        contradictions += 1;
                        continue;
                    };
                    assert!(absurd.is_none(), "{at}: a contradiction met");
                    closures += 1;
                    let pots = |row: Bits, state: bool| {
                        let mut pots: Vec<u16> = places(row)
                            .map(|i| Pot::new(reach.pots[i].cell(), reach.pots[i].digit(), state).0)
                            .collect();
                        pots.sort_unstable();
                        pots
                    };
                    let reached = |set: usize| {
                        let mut pots: Vec<u16> =
                            chains.sets[set].entries().map(|(p, _)| p.0).collect();
                        pots.sort_unstable();
                        pots
                    };
                    assert_eq!(pots(ons, true), reached(VALUE_ON), "{at} on");
                    assert_eq!(pots(offs, false), reached(VALUE_OFF), "{at} off");
                }
                if board.cands(cell).count_ones() < 3 {
                    continue;
                }
                chains.best = None;
                chains.arena.clear();
                chains.remembered.forget();
                chains.chains_of_cell(board, cell, MULTIPLE);
                if reach.may_conclude(board, &chains.links, cell) {
                    searched += 1;
                } else {
                    assert!(chains.best.is_none(), "{line} r{cell}: a hint");
                    ruled_out += 1;
                }
            }
        };
        each_thinned(8, 4, 3, 5, |line, _, board, _| check(line, board));
        let mut boards = 0;
        for (line, mut board, solution) in crate::tasks::grade::test_boards::sample(3000) {
            let mut memory = PathMemory::new(Some(&solution));
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                if step.rating >= 80 {
                    check(line, &board);
                    boards += 1;
                }
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
            if boards >= 40 {
                break;
            }
        }
        assert!(boards >= 40);
        let counts = [contradictions, closures, ruled_out, searched];
        assert!(counts.iter().all(|&n| n > 500), "{counts:?}");
    }
}
