//! Chains of implications (6.5 and up), as Sudoku Explainer searches and
//! rates them: bidirectional cycles and forcing chains (6.5-7.x), Nishio
//! (7.5+), multiple forcing chains from a cell or a region (8.0+), and
//! dynamic forcing chains (8.5+).
//!
//! A node is a candidate assumed true ("on") or false ("off"). From an
//! "on" node follow the "off"s of the cell's other digits (a Y link) and
//! of the digit in the cell's peers (X links); from an "off" node follow
//! the "on" of a bivalue cell's other digit (Y) and of the digit's only
//! other place in a box, row or column (X). Every node keeps the nodes it
//! came from: a chain's length is how many distinct nodes its conclusion
//! rests on, and SE adds 0.1 to the technique's base each time that
//! length passes 4, 6, 8, 12, 16, 24, ... (see [`length_bonus`]).
//!
//! Which conclusion is taken matters for the rating of the whole path, so
//! the search walks cells, digits and links in SE's order, breadth first,
//! and keeps the first hint of the lowest (rating, length, kind) as SE's
//! stable sort does.

mod one_digit;
mod reach;

use super::board::{
    bit, cell_bit, cells_of, digits, seen_by, unit_places, units_of, Board, ALL, PEER_MASKS,
    UNIT_MASKS,
};
use super::{Step, Technique};
use crate::puzzle::grid::{Grid, BOX_OF, COL_OF, ROW_OF, UNIT_CELLS};

/// A candidate and a state: `((cell * 9 + digit - 1) << 1) | on`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Pot(u16);

/// Per candidate (a [`Pot`]'s 15 high bits), its cell and digit: a load
/// in place of a division by 9 (the dynamic chains ask it a hundred
/// million times on 200 of magictour's puzzles). Room for every index a
/// `Pot` can hold, so no bounds check; past the 729 candidates, zeros.
static CELL_AND_DIGIT: [(u8, u8); 1 << 15] = {
    let mut t = [(0u8, 0u8); 1 << 15];
    let mut k = 0;
    while k < 729 {
        t[k] = ((k / 9) as u8, (k % 9) as u8 + 1);
        k += 1;
    }
    t
};

/// How many distinct [`Pot`]s there are.
const POTS: usize = 81 * 9 * 2;

impl Pot {
    fn new(cell: u8, d: u8, on: bool) -> Pot {
        Pot(((cell as u16 * 9 + d as u16 - 1) << 1) | on as u16)
    }
    fn cell(self) -> u8 {
        CELL_AND_DIGIT[(self.0 >> 1) as usize].0
    }
    fn digit(self) -> u8 {
        CELL_AND_DIGIT[(self.0 >> 1) as usize].1
    }
    fn on(self) -> bool {
        self.0 & 1 != 0
    }
    /// The same candidate in the other state.
    fn flipped(self) -> Pot {
        Pot(self.0 ^ 1)
    }
}

/// A value per candidate (`cell * 9 + digit - 1`), read by a [`Pot`]
/// of either state. Room for every index a `Pot`'s 15 high bits can
/// hold, of which only the first 729 are used (the rest are written once,
/// when made, or not at all where the value is zero and the allocation
/// comes zeroed, and never read; one set of tables per thread): read by
/// a `Pot`, it needs no bounds check, and these reads are the searches'
/// inner loops.
struct PerCandidate<T>(Box<[T; 1 << 15]>);

impl<T: Copy> PerCandidate<T> {
    fn new(value: T) -> PerCandidate<T> {
        PerCandidate(boxed_array(value))
    }
}

/// An array of `N` copies of `value`, made on the heap (these tables are
/// too large for the stack).
fn boxed_array<T: Copy, const N: usize>(value: T) -> Box<[T; N]> {
    vec![value; N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("made N long"))
}

impl<T> std::ops::Index<Pot> for PerCandidate<T> {
    type Output = T;
    #[inline]
    fn index(&self, pot: Pot) -> &T {
        &self.0[(pot.0 >> 1) as usize]
    }
}

impl<T> std::ops::Index<usize> for PerCandidate<T> {
    type Output = T;
    #[inline]
    fn index(&self, k: usize) -> &T {
        &self.0[k]
    }
}

impl<T> std::ops::IndexMut<usize> for PerCandidate<T> {
    #[inline]
    fn index_mut(&mut self, k: usize) -> &mut T {
        &mut self.0[k]
    }
}

/// A value per candidate-with-state, read by its [`Pot`]: as
/// [`PerCandidate`], room for every value a `Pot` can hold, of which the
/// first [`POTS`] are used, so that reading needs no bounds check.
struct PerPot<T>(Box<[T; 1 << 16]>);

impl<T: Copy> PerPot<T> {
    fn new(value: T) -> PerPot<T> {
        PerPot(boxed_array(value))
    }

    /// Sets every used value to `value`.
    fn fill(&mut self, value: T) {
        self.0[..POTS].fill(value);
    }
}

impl<T> std::ops::Index<Pot> for PerPot<T> {
    type Output = T;
    #[inline]
    fn index(&self, pot: Pot) -> &T {
        &self.0[pot.0 as usize]
    }
}

impl<T> std::ops::IndexMut<Pot> for PerPot<T> {
    #[inline]
    fn index_mut(&mut self, pot: Pot) -> &mut T {
        &mut self.0[pot.0 as usize]
    }
}

type NodeId = u32;

/// A node of a search: its candidate and state, the link it was derived
/// by (its first parent: most nodes have only that one, kept here), and
/// where its other parents are in [`Arena::links`] (in dynamic chains,
/// the candidates removed earlier that the link needed).
struct Node {
    pot: Pot,
    /// How many other parents.
    others: u16,
    /// The first parent, [`NO_PARENT`] for a root.
    first: NodeId,
    /// Where the other parents start in [`Arena::links`].
    at: u32,
}

const NO_PARENT: NodeId = NodeId::MAX;

/// The nodes of the searches from one starting cell.
#[derive(Default)]
struct Arena {
    nodes: Vec<Node>,
    links: Vec<NodeId>,
}

impl Arena {
    fn clear(&mut self) {
        self.nodes.clear();
        self.links.clear();
    }

    fn root(&mut self, pot: Pot) -> NodeId {
        self.child(pot, NO_PARENT)
    }

    fn child(&mut self, pot: Pot, parent: NodeId) -> NodeId {
        self.nodes.push(Node {
            pot,
            others: 0,
            first: parent,
            at: self.links.len() as u32,
        });
        self.nodes.len() as NodeId - 1
    }

    /// A lower bound of [`Arena::ancestors`] of a node of a search from
    /// one root: the nodes of its line of first parents, whose candidates
    /// differ (a search meets each candidate-with-state once). A walk up
    /// one line, not through every parent.
    fn least_ancestors(&self, id: NodeId) -> u32 {
        self.first_parent_line(id).count() as u32
    }

    /// `id`, then its first parent, that one's first parent, ... up to
    /// the root.
    fn first_parent_line(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(Some(id), |&at| self.first_parent(at))
    }

    /// Adds a parent to `id` (after its first), which must be the node
    /// made last.
    fn add_parent(&mut self, id: NodeId, parent: NodeId) {
        debug_assert_eq!(id as usize + 1, self.nodes.len());
        debug_assert_ne!(self.nodes[id as usize].first, NO_PARENT);
        self.links.push(parent);
        self.nodes[id as usize].others += 1;
    }

    fn pot(&self, id: NodeId) -> Pot {
        self.nodes[id as usize].pot
    }

    /// The parents of `id`, the first first.
    fn parents(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let n = &self.nodes[id as usize];
        let others = &self.links[n.at as usize..n.at as usize + n.others as usize];
        self.first_parent(id)
            .into_iter()
            .chain(others.iter().copied())
    }

    fn first_parent(&self, id: NodeId) -> Option<NodeId> {
        let first = self.nodes[id as usize].first;
        (first != NO_PARENT).then_some(first)
    }

    /// The number of distinct candidates-with-state `id` rests on, itself
    /// included: SE's measure of a chain's length. Breadth first, and a
    /// candidate met again is not followed again, as SE counts.
    fn ancestors(&self, id: NodeId, queue: &mut Vec<NodeId>) -> u32 {
        // A node is queued only if no node of its candidate was: queues
        // are first in, first out, so the one followed is the one that
        // would be popped first anyway.
        let mut seen = NO_MEMBERS;
        let mut first_of_its_pot = |n: NodeId| {
            let p = self.pot(n);
            let new = !holds(&seen, p);
            add(&mut seen, p);
            new
        };
        queue.clear();
        queue.push(id);
        first_of_its_pot(id);
        let mut head = 0;
        while head < queue.len() {
            let n = queue[head];
            head += 1;
            for parent in self.parents(n) {
                if first_of_its_pot(parent) {
                    queue.push(parent);
                }
            }
        }
        queue.len() as u32
    }
}

/// A set of candidates-with-state, each with the node that reached it, in
/// the order they were added (SE's linked set). Membership is a bit per
/// candidate-with-state: 184 bytes that stay in the first-level cache,
/// where a chain's tests would wait on the 5.8 KB of nodes (read only
/// for members), and emptied by zeroing them.
struct PotSet {
    has: Members,
    /// The node of each member (others hold stale values).
    slot: PerPot<NodeId>,
    /// The members in the order they came, and, after [`PotSet::retain_in`]
    /// until [`PotSet::settle`], others once members.
    order: Vec<Pot>,
    /// `order` holds others than members.
    stale: bool,
}

/// A bit per candidate-with-state ([`Pot`]).
type Members = [u64; POTS.div_ceil(64)];

const NO_MEMBERS: Members = [0; POTS.div_ceil(64)];

fn holds(members: &Members, p: Pot) -> bool {
    let i = p.0 as usize;
    members[i / 64] & (1 << (i % 64)) != 0
}

fn add(members: &mut Members, p: Pot) {
    let i = p.0 as usize;
    members[i / 64] |= 1 << (i % 64);
}

impl PotSet {
    fn new() -> PotSet {
        PotSet {
            has: NO_MEMBERS,
            slot: PerPot::new(0),
            order: Vec::new(),
            stale: false,
        }
    }

    fn clear(&mut self) {
        self.order.clear();
        self.has = NO_MEMBERS;
        self.stale = false;
    }

    fn contains(&self, p: Pot) -> bool {
        holds(&self.has, p)
    }

    fn get(&self, p: Pot) -> Option<NodeId> {
        self.contains(p).then(|| self.slot[p])
    }

    /// Adds `p` reached by `node` (a node already there is replaced, its
    /// place in the order kept).
    fn insert(&mut self, p: Pot, node: NodeId) {
        debug_assert!(!self.stale);
        if !self.contains(p) {
            self.order.push(p);
            add(&mut self.has, p);
        }
        self.slot[p] = node;
    }

    /// Adds `p`, not a member, reached by `node`.
    fn insert_new(&mut self, p: Pot, node: NodeId) {
        debug_assert!(!self.stale && !self.contains(p));
        self.order.push(p);
        add(&mut self.has, p);
        self.slot[p] = node;
    }

    /// Each candidate with its node, in the set's order.
    fn entries(&self) -> impl Iterator<Item = (Pot, NodeId)> + '_ {
        debug_assert!(!self.stale);
        self.order.iter().map(|&p| (p, self.slot[p]))
    }

    /// Fills an empty set with what [`PotSet::keep_into`] kept of one.
    fn fill(&mut self, kept: &KeptSet) {
        debug_assert!(self.order.is_empty());
        self.has = kept.has;
        self.order.extend_from_slice(&kept.order);
        for (&p, &node) in kept.order.iter().zip(&kept.nodes) {
            self.slot[p] = node;
        }
    }

    /// Copies the set into `kept`, for [`PotSet::fill`].
    fn keep_into(&self, kept: &mut KeptSet) {
        kept.has = self.has;
        kept.order.clear();
        kept.order.extend_from_slice(&self.order);
        kept.nodes.clear();
        kept.nodes.extend(self.entries().map(|(_, node)| node));
    }

    /// Copies `other`'s members and order, not its nodes: for a set that
    /// is only intersected and listed.
    fn copy_members(&mut self, other: &PotSet) {
        self.has = other.has;
        self.stale = other.stale;
        self.order.clear();
        self.order.extend_from_slice(&other.order);
    }

    /// Keeps only what `other` holds too. Only the members are told
    /// here: the order follows when it is read ([`PotSet::members`]),
    /// once after many of these.
    fn retain_in(&mut self, other: &PotSet) {
        for (mine, theirs) in self.has.iter_mut().zip(&other.has) {
            *mine &= theirs;
        }
        self.stale = true;
    }

    fn is_empty(&self) -> bool {
        self.has.iter().all(|&w| w == 0)
    }

    /// Drops from the order the candidates no longer members.
    fn settle(&mut self) {
        if self.stale {
            let has = &self.has;
            self.order.retain(|&p| holds(has, p));
            self.stale = false;
        }
    }

    /// The members in order, into `out`.
    fn members(&mut self, out: &mut Vec<Pot>) {
        self.settle();
        out.clear();
        out.extend_from_slice(&self.order);
    }
}

/// The candidates-with-state one static search (cycles and forcing chains
/// of the first chaining producer) has reached, each with the one it was
/// reached from. Such a search gives every node a single parent and meets
/// each candidate-with-state once, so a node is its [`Pot`]: a slot per
/// pot holds its parent, and a search number tells the slots of this
/// search from older ones (nothing is cleared between searches). Only a
/// result is copied into the [`Arena`] (see [`Tree::grow`]), which keeps
/// the many nodes that lead nowhere out of it.
struct Tree {
    /// Per pot: the search that reached it last, and its parent then (the
    /// root is its own parent).
    slot: PerPot<(u32, Pot)>,
    search: u32,
    /// [`Tree::line`]'s buffer.
    line: Vec<Pot>,
}

impl Tree {
    fn new() -> Tree {
        Tree {
            slot: PerPot::new((0, Pot(0))),
            search: 0,
            line: Vec::new(),
        }
    }

    /// Starts a new search from `root`.
    fn start(&mut self, root: Pot) {
        self.search = self.search.wrapping_add(1);
        if self.search == 0 {
            // Search numbers wrapped: old slots could pass for new ones.
            self.slot.fill((0, Pot(0)));
            self.search = 1;
        }
        self.slot[root] = (self.search, root);
    }

    fn contains(&self, p: Pot) -> bool {
        self.slot[p].0 == self.search
    }

    /// Records `p`, reached from `parent` (which this search reached).
    fn insert(&mut self, p: Pot, parent: Pot) {
        self.slot[p] = (self.search, parent);
    }

    fn parent(&self, p: Pot) -> Option<Pot> {
        let up = self.slot[p].1;
        (up != p).then_some(up)
    }

    /// True when `pot` is on the line of parents above `at` (not counting
    /// `at` itself).
    fn descends_from(&self, at: Pot, pot: Pot) -> bool {
        let mut at = at;
        while let Some(up) = self.parent(at) {
            if up == pot {
                return true;
            }
            at = up;
        }
        false
    }

    /// The pots from the root down to `last`, then `extra` below it:
    /// the line a result stands on.
    fn line(&mut self, last: Pot, extra: &[Pot]) -> &[Pot] {
        self.line.clear();
        let mut at = Some(last);
        while let Some(p) = at {
            self.line.push(p);
            at = self.parent(p);
        }
        self.line.reverse();
        self.line.extend_from_slice(extra);
        &self.line
    }

    /// Copies [`Tree::line`] into `arena` (each node the child of the one
    /// before): the nodes a result stands on. Returns the last node.
    fn grow(&mut self, arena: &mut Arena, last: Pot, extra: &[Pot]) -> NodeId {
        grow(arena, self.line(last, extra))
    }
}

/// Adds `line` to `arena` as a chain from its first pot; returns the node
/// of the last.
fn grow(arena: &mut Arena, line: &[Pot]) -> NodeId {
    let mut node = arena.root(line[0]);
    for &p in &line[1..] {
        node = arena.child(p, node);
    }
    node
}

/// SE's length bonus: 0.1 for each of 4, 6, 8, 12, 16, 24, 32, ... (each
/// threshold alternately times 3/2 and 4/3) that `complexity - 2` passes,
/// summed in floating point as SE sums it.
pub fn length_bonus(complexity: u32) -> f64 {
    let mut bonuses = LengthBonuses::default();
    bonuses.nth(complexity as usize).expect("endless")
}

/// [`length_bonus`] of complexities 0, 1, 2, ... in turn, each from the
/// one before (the same floating-point sums).
struct LengthBonuses {
    /// The next complexity's length (`complexity - 2`).
    length: i64,
    added: f64,
    ceil: i64,
    odd: bool,
}

impl Default for LengthBonuses {
    fn default() -> Self {
        LengthBonuses {
            length: -2,
            added: 0.0,
            ceil: 4,
            odd: false,
        }
    }
}

impl Iterator for LengthBonuses {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        while self.length > self.ceil {
            self.added += 0.1;
            self.ceil = if self.odd {
                self.ceil * 4 / 3
            } else {
                self.ceil * 3 / 2
            };
            self.odd = !self.odd;
        }
        self.length += 1;
        Some(self.added)
    }
}

/// The largest complexity up to which every chain passes `ok` (its
/// complexity, its length bonus): complexities 1, 2, ... in turn, the
/// bonuses summed one after the other, not each from scratch.
fn longest_chain(ok: impl Fn(u32, f64) -> bool) -> u32 {
    let bonuses = (0..=1 << 16).zip(LengthBonuses::default()).skip(1);
    bonuses.take_while(|&(c, bonus)| ok(c, bonus)).count() as u32
}

/// A rating as SE prints it, in tenths: `floor((x + 0.05) * 10)`.
fn tenths(x: f64) -> u16 {
    ((x + 0.05) * 10.0).floor() as u16
}

/// The kind of a chaining hint: SE's last sort key, after rating and length.
#[derive(Clone, Copy)]
enum Kind {
    DoubleForcing = 1,
    X = 2,
    Y = 3,
    Xy = 4,
    Cell = 5,
    Region = 6,
    Contradiction = 7,
}

/// Per cell, the digits a hint removes (a mask).
type Removed = Vec<(u8, u16)>;

/// A conclusion found, before it is known to be the one taken.
struct Found {
    rating: f64,
    complexity: u32,
    kind: Kind,
    technique: Technique,
    removed: Removed,
    placed: Option<(u8, u8)>,
    /// The nodes the conclusion rests on, a branch each.
    branches: Vec<Vec<Pot>>,
    /// Where the search met it: the last tie-break.
    order: u64,
}

/// The order SE sorts hints in: by rating, then complexity, then kind
/// (compared as a tuple).
fn sort_key(rating: f64, complexity: u32, kind: Kind) -> Key {
    (rating, complexity, kind as u8)
}

/// A hint's place in SE's sort (see [`sort_key`]).
type Key = (f64, u32, u8);

/// After every hint's key.
const NO_KEY: Key = (f64::INFINITY, u32::MAX, u8::MAX);

impl Found {
    /// Before `other` in SE's stable sort (ties keep the earlier).
    fn before(&self, other: &Found) -> bool {
        let key = |f: &Found| (sort_key(f.rating, f.complexity, f.kind), f.order);
        key(self) < key(other)
    }

    fn into_step(self) -> Step {
        let mut eliminated = Vec::new();
        let mut removed = self.removed;
        removed.sort_by_key(|&(c, _)| c);
        for (cell, mask) in removed {
            eliminated.extend(digits(mask).map(|d| (cell, d)));
        }
        let mut pattern: Vec<u8> = self.branches.iter().flatten().map(|p| p.cell()).collect();
        pattern.sort_unstable();
        pattern.dedup();
        let chains = self
            .branches
            .iter()
            .map(|b| b.iter().map(|p| (p.cell(), p.digit(), p.on())).collect())
            .collect();
        Step {
            technique: self.technique,
            rating: tenths(self.rating),
            placed: self.placed,
            eliminated,
            pattern,
            chains,
        }
    }
}

/// The links of every candidate of one board, listed once for the many
/// searches of the first chaining producer and of the multiple chains
/// (neither changes the board while it searches), per candidate
/// (`cell * 9 + digit - 1`, a [`Pot`] without its state bit): the "off"s
/// its "on" implies, the cell's other
/// digits (Y links) first, then the digit in its box, row and column (X
/// links); and the "on"s its "off" implies, a bivalue cell's other digit
/// (Y) first, then the digit's other place in a unit where it has two (X).
struct Links {
    /// Per candidate, the "off"s its "on" implies: 8 Y links at most,
    /// then 20 X links at most (its digit among the cell's peers).
    offs: PerCandidate<[Pot; 28]>,
    /// How many of a candidate's `offs` are Y links, how many X.
    offs_len: PerCandidate<(u8, u8)>,
    ons: PerCandidate<[Pot; 4]>,
    /// How many of a candidate's `ons` are Y links (0 or 1), how many X.
    ons_len: PerCandidate<(u8, u8)>,
    /// The candidates listed (each digit's cells), once built: a board
    /// searched by several producers in turn is listed once.
    built: Option<[u128; 9]>,
}

/// Above this many candidates that differ between the board listed last
/// and the next, [`Links::build`] lists every candidate afresh rather
/// than telling which lists changed.
const RELIST_ALL_ABOVE: u32 = 48;

/// Per cell, its peers split as [`on_to_off`] lists them: the box's other
/// cells, the row's cells outside the box, the column's outside the box.
const X_PEERS: [[u128; 3]; 81] = {
    let mut t = [[0u128; 3]; 81];
    let mut cell = 0;
    while cell < 81 {
        // Units numbered as in `UNIT_CELLS`: rows, columns, boxes.
        let in_box = UNIT_MASKS[18 + BOX_OF[cell] as usize];
        let row = UNIT_MASKS[ROW_OF[cell] as usize];
        let column = UNIT_MASKS[9 + COL_OF[cell] as usize];
        t[cell] = [in_box & !(1 << cell), row & !in_box, column & !in_box];
        cell += 1;
    }
    t
};

impl Links {
    fn new() -> Links {
        Links {
            offs: PerCandidate::new([Pot(0); 28]),
            offs_len: PerCandidate::new((0, 0)),
            ons: PerCandidate::new([Pot(0); 4]),
            ons_len: PerCandidate::new((0, 0)),
            built: None,
        }
    }

    /// The lists of `board`: what [`on_to_off`] and [`off_to_on`] give
    /// (with Y and X links) for each candidate, listed once (kept if
    /// `board`'s candidates are those listed last).
    ///
    /// Where few candidates differ from the board listed last (most
    /// boards of a path, one step after the last; and back from the
    /// proof's copy), only the lists that can have changed are made
    /// again: a candidate's Y links rest on its cell's candidates, its X
    /// links on its digit's places among the cell's peers, so those of
    /// each cell with a changed candidate, and those of each digit in
    /// cells that see a cell where that digit changed. (The lists of
    /// candidates gone stay, and are never read.)
    fn build(&mut self, board: &Board) {
        let cands = board.candidate_cells();
        let Some(old) = self.built.replace(cands) else {
            self.list_all(board);
            return;
        };
        if old == cands {
            return;
        }
        let mut changed_cells = 0u128;
        let mut changed = 0;
        for (was, now) in old.iter().zip(&cands) {
            changed_cells |= was ^ now;
            changed += (was ^ now).count_ones();
        }
        if changed > RELIST_ALL_ABOVE {
            self.list_all(board);
            return;
        }
        for d in 1..=9u8 {
            let differ = old[d as usize - 1] ^ cands[d as usize - 1];
            let near = if differ == 0 { 0 } else { seen_by(differ) };
            for cell in cells_of(cands[d as usize - 1] & (near | changed_cells)) {
                self.list(board, cell, d);
            }
        }
    }

    /// Makes every candidate's lists.
    fn list_all(&mut self, board: &Board) {
        for cell in 0..81u8 {
            for d in digits(board.cands(cell)) {
                self.list(board, cell, d);
            }
        }
    }

    /// Makes the lists of candidate `d` of `cell`.
    #[inline]
    fn list(&mut self, board: &Board, cell: u8, d: u8) {
        let cands = board.cands(cell);
        let k = cell as usize * 9 + d as usize - 1;
        let offs = &mut self.offs[k];
        let mut n = 0;
        each_off(cands, board.cells_with(d), cell, d, true, |off| {
            offs[n] = off;
            n += 1;
        });
        let y_offs = cands.count_ones() as u8 - 1;
        self.offs_len[k] = (y_offs, n as u8 - y_offs);
        // As `each_on` lists them, its units' places read from the
        // board's 9-bit masks (not the digit's 81 cells).
        let ons = &mut self.ons[k];
        let mut n = 0;
        if cands.count_ones() == 2 {
            ons[0] = Pot::new(cell, (cands & !bit(d)).trailing_zeros() as u8 + 1, true);
            n = 1;
        }
        let y_ons = n as u8;
        for (u, place) in unit_places(cell) {
            let others = board.positions(u, d) & !place;
            if others.count_ones() == 1 {
                let other = UNIT_CELLS[u][others.trailing_zeros() as usize];
                ons[n] = Pot::new(other, d, true);
                n += 1;
            }
        }
        self.ons_len[k] = (y_ons, n as u8 - y_ons);
    }

    /// As [`on_to_off`], from the lists.
    #[inline]
    fn offs_of_on(&self, pot: Pot, y: bool) -> &[Pot] {
        let (y_offs, x_offs) = self.offs_len[pot];
        let start = if y { 0 } else { y_offs as usize };
        &self.offs[pot][start..y_offs as usize + x_offs as usize]
    }

    /// As [`off_to_on`], from the lists, the "on"s only.
    #[inline]
    fn ons_of_off(&self, pot: Pot, y: bool, x: bool) -> &[Pot] {
        let (y_ons, x_ons) = self.ons_len[pot];
        let start = if y { 0 } else { y_ons as usize };
        let end = y_ons as usize + if x { x_ons as usize } else { 0 };
        &self.ons[pot][start..end]
    }

    /// True when `pot`'s candidate, off, implies an "on" by these links
    /// (see [`off_to_on`]). An "off" that does not is a dead end: a
    /// search that only seeks "on"s, or its own start, need not keep it.
    #[inline]
    fn leads_on(&self, pot: Pot, y: bool, x: bool) -> bool {
        let (y_ons, x_ons) = self.ons_len[pot];
        (y && y_ons != 0) || (x && x_ons != 0)
    }
}

/// A first-in first-out queue of nodes that only grows until cleared:
/// a vector and the place of its head (no wrapping around, as in a ring
/// buffer: one chain's queue is emptied once, at its end).
#[derive(Default)]
struct Queue {
    nodes: Vec<NodeId>,
    head: usize,
}

impl Queue {
    fn clear(&mut self) {
        self.nodes.clear();
        self.head = 0;
    }

    fn push_back(&mut self, n: NodeId) {
        self.nodes.push(n);
    }

    fn pop_front(&mut self) -> Option<NodeId> {
        let n = *self.nodes.get(self.head)?;
        self.head += 1;
        Some(n)
    }
}

/// A breadth-first layer of a search from one start: at most `N` items
/// (a power of two), in room made once, pushed without a test for room
/// (the searches' inner loops). Each candidate-with-state enters a
/// search once, so a layer of "on"s or of new "off"s holds at most 729;
/// a cycle search's "off"s met again are kept only where they lead
/// straight back to the start, and four "off"s at most do (the start's
/// strong partners'), so each "on" of a layer adds four repeats at most
/// and a layer of "off"s holds at most 729 * 5.
/// Past `N` (never), a push would write over an earlier item, and the
/// next reading of the layer panics (its length is checked there).
struct Layer<T, const N: usize> {
    items: Box<[T; N]>,
    len: usize,
}

impl<T: Copy + Default, const N: usize> Default for Layer<T, N> {
    fn default() -> Self {
        Layer {
            items: boxed_array(T::default()),
            len: 0,
        }
    }
}

impl<T: Copy, const N: usize> Layer<T, N> {
    #[inline]
    fn push(&mut self, item: T) {
        debug_assert!(self.len < N, "a layer holds at most {N}");
        self.items[self.len & (N - 1)] = item;
        self.len += 1;
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items[..self.len].iter()
    }
}

impl Extend<NodeId> for Queue {
    fn extend<I: IntoIterator<Item = NodeId>>(&mut self, nodes: I) {
        self.nodes.extend(nodes);
    }
}

/// Buffers a breadth-first search reuses from one start to the next.
#[derive(Default)]
struct Scratch {
    on: Layer<Pot, 1024>,
    off: Layer<Pot, 1024>,
    /// A cycle search's pending "off"s: (candidate, parent, a repeat?).
    off_visits: Layer<(Pot, Pot, bool), 4096>,
    /// [`Chains::chain`]'s queues and link lists.
    queue_on: Queue,
    queue_off: Queue,
    offs: Vec<Pot>,
    ons: Vec<(Pot, Via)>,
}

/// The search state: the nodes, the sets a search fills, and a working
/// copy of the grid for dynamic chains.
pub struct Chains {
    arena: Arena,
    sets: Vec<PotSet>,
    queue: Vec<NodeId>,
    /// The targets of a set of chains, listed before their hints are made.
    targets: Vec<Pot>,
    chains_found: Vec<NodeId>,
    scratch: Scratch,
    links: Links,
    tree: Tree,
    /// Which of a pass's searches can find anything, told on bit rows.
    reach: reach::Reach,
    best: Option<Found>,
    /// The pass's depth limits (cycle, forcing chain) for the best so
    /// far, made again when a pass starts or the best changes.
    limits: Option<(u32, u32)>,
    /// The place in SE's list of the next hint offered.
    order: u64,
    /// Per digit, its cells when the X pass last searched all of its
    /// candidates in full and found nothing: an X search stays on one
    /// digit's cells, so while they are the same it finds nothing again.
    x_quiet: [Option<u128>; 9],
    /// Per digit, its cells and the longest chain sought when
    /// [`Chains::forcing_conclusions`] last found no X-links' conclusion
    /// on it: those chains too stay on the digit's cells.
    x_unproving: [Option<(u128, u32)>; 9],
    /// Per digit, the cells where a Nishio chain on it meets a
    /// contradiction (see `one_digit`), and the digit's cells when they
    /// were worked out: a Nishio chain stays on its digit's cells, so
    /// while they are the same so are these.
    nishio_proving: [Option<(u128, u128)>; 9],
    /// The bivalue cells' candidates (0 for other cells) when the Y pass
    /// last searched in full and found nothing: its cycles stand on those
    /// cells only, and what a cycle removes only shrinks as candidates go.
    y_quiet: Option<[u16; 81]>,
    /// The puzzle's solution, when known: it tells which of a candidate's
    /// two forcing chains cannot exist.
    solution: Option<[u8; 81]>,
    /// What chains from one candidate "on" found, kept through one call
    /// of multiple or dynamic chains (see [`Chains::chain_from_on`]).
    remembered: Remembered,
}

/// Chains from a single candidate "on", kept for the rest of one search
/// over the board: a region chain follows each other place of the digit
/// on, and the same candidate's own cell chain does again, from the same
/// board, so the same search would be made up to four times. The nodes
/// stay in the arena meanwhile.
#[derive(Default)]
struct Remembered {
    /// Per candidate (`cell * 9 + digit - 1`), its entry in `chains`.
    at: Vec<u16>,
    chains: Vec<RememberedChain>,
    used: usize,
    /// Every chain searched afresh (for tests comparing the two).
    #[cfg(test)]
    off: bool,
}

#[derive(Default)]
struct RememberedChain {
    on: KeptSet,
    off: KeptSet,
    absurd: Option<(NodeId, NodeId)>,
}

/// A [`PotSet`] as a [`RememberedChain`] keeps it: its members, its order
/// and, beside it, each one's node (copied in and out whole).
#[derive(Default)]
struct KeptSet {
    has: Members,
    order: Vec<Pot>,
    nodes: Vec<NodeId>,
}

impl Remembered {
    const NONE: u16 = u16::MAX;

    fn forget(&mut self) {
        self.at.clear();
        self.at.resize(729, Self::NONE);
        self.used = 0;
    }

    fn get(&self, pot: Pot) -> Option<&RememberedChain> {
        #[cfg(test)]
        if self.off {
            return None;
        }
        let k = (pot.0 >> 1) as usize;
        let at = *self.at.get(k)?;
        (at != Self::NONE).then(|| &self.chains[at as usize])
    }

    fn keep(&mut self, pot: Pot, on: &PotSet, off: &PotSet, absurd: Option<(NodeId, NodeId)>) {
        if self.used == self.chains.len() {
            self.chains.push(RememberedChain::default());
        }
        let entry = &mut self.chains[self.used];
        on.keep_into(&mut entry.on);
        off.keep_into(&mut entry.off);
        entry.absurd = absurd;
        self.at[(pot.0 >> 1) as usize] = self.used as u16;
        self.used += 1;
    }
}

// Indices of the sets in `Chains::sets`.
const VALUE_ON: usize = 0; // 9 sets: what each digit of the cell, on, implies
const VALUE_OFF: usize = 9; // 9 sets
const CELL_ON: usize = 18;
const CELL_OFF: usize = 19;
const FROM_OFF_ON: usize = 20; // what the cell's digit, off, implies
const FROM_OFF_OFF: usize = 21;
const REGION_ON: usize = 22;
const REGION_OFF: usize = 23;
const POS_ON: usize = 24; // 9 sets: what each other place of a digit implies
const POS_OFF: usize = 33; // 9 sets
const SETS: usize = 42;

/// The passes of the first chaining producer: (Y links, X links).
const PASSES: [(bool, bool); 3] = [(false, true), (true, false), (true, true)];
const X_PASS: usize = 0;
const Y_PASS: usize = 1;

/// Each cell's candidates if it has two, else 0.
fn bivalue_cells(board: &Board) -> [u16; 81] {
    std::array::from_fn(|c| {
        let cands = board.cands(c as u8);
        if cands.count_ones() == 2 {
            cands
        } else {
            0
        }
    })
}

/// A pass's kind of hint, and the base ratings of its cycles and chains.
fn pass_kind(y: bool, x: bool) -> (Kind, f64, f64) {
    match (y, x) {
        (true, true) => (Kind::Xy, 7.0, 7.0),
        (true, false) => (Kind::Y, 6.5, 6.6),
        _ => (Kind::X, 6.5, 6.6),
    }
}

/// Which links and searches a chaining producer uses.
#[derive(Clone, Copy)]
struct Mode {
    /// Y links (a cell's other digits) as well as X links.
    y: bool,
    /// Removed candidates leave the working grid as the chain goes.
    dynamic: bool,
    nishio: bool,
    /// Region and cell chains for cells of three or more candidates.
    multiple: bool,
    base: f64,
}

const NISHIO: Mode = Mode {
    y: false,
    dynamic: true,
    nishio: true,
    multiple: false,
    base: 7.5,
};
const MULTIPLE: Mode = Mode {
    y: true,
    dynamic: false,
    nishio: false,
    multiple: true,
    base: 8.0,
};
const DYNAMIC: Mode = Mode {
    y: true,
    dynamic: true,
    nishio: false,
    multiple: true,
    base: 8.5,
};

impl Default for Chains {
    fn default() -> Self {
        Chains::new()
    }
}

impl Chains {
    pub fn new() -> Chains {
        Chains::knowing(None)
    }

    /// Chains searched knowing the puzzle's `solution` (or not): the same
    /// hints found, with fewer searches.
    pub fn knowing(solution: Option<&Grid>) -> Chains {
        Chains {
            solution: solution.map(|g| *g.cells()),
            arena: Arena::default(),
            sets: (0..SETS).map(|_| PotSet::new()).collect(),
            queue: Vec::new(),
            targets: Vec::new(),
            chains_found: Vec::new(),
            scratch: Scratch::default(),
            links: Links::new(),
            tree: Tree::new(),
            reach: reach::Reach::new(),
            best: None,
            limits: None,
            order: 0,
            x_quiet: [None; 9],
            x_unproving: [None; 9],
            nishio_proving: [None; 9],
            y_quiet: None,
            remembered: Remembered::default(),
        }
    }

    /// Made ready for another puzzle's path, as [`Chains::knowing`] makes
    /// it, the buffers kept.
    pub fn restart(&mut self, solution: Option<&Grid>) {
        self.solution = solution.map(|g| *g.cells());
        self.x_quiet = [None; 9];
        self.x_unproving = [None; 9];
        self.nishio_proving = [None; 9];
        self.y_quiet = None;
        self.best = None;
        self.order = 0;
        self.arena.clear();
        for set in &mut self.sets {
            set.clear();
        }
    }

    /// Bidirectional cycles and forcing chains (6.5+): three passes, X
    /// links only, Y links only (cycles from bivalue cells), both.
    ///
    /// Each search goes only as deep as a hint could still come before
    /// the best found so far.
    ///
    /// `board` must follow the board of the last call by removals only
    /// (the steps of one path): a pass that found nothing is not repeated
    /// where the cells it stands on are unchanged.
    pub fn cycles_and_forcing_chains(&mut self, board: &Board) -> Option<Step> {
        self.best = None;
        self.links.build(board);
        let bivalue = bivalue_cells(board);
        for (pass, links) in PASSES.into_iter().enumerate() {
            if pass == Y_PASS && self.y_quiet == Some(bivalue) {
                continue;
            }
            self.pass(board, pass, links);
            // Searched in full (no hint found to bound them) and nothing
            // found.
            if self.best.is_none() {
                match pass {
                    X_PASS => {
                        for d in 1..=9 {
                            self.x_quiet[d as usize - 1] = Some(board.cells_with(d));
                        }
                    }
                    Y_PASS => self.y_quiet = Some(bivalue),
                    _ => {}
                }
            }
        }
        self.best.take().map(Found::into_step)
    }

    /// One pass over every candidate.
    fn pass(&mut self, board: &Board, pass: usize, links: (bool, bool)) {
        let x = links.1;
        if pass == X_PASS {
            let searched = (1..=9u8)
                .filter(|&d| self.x_quiet[d as usize - 1] != Some(board.cells_with(d)))
                .fold(0u16, |m, d| m | 1 << (d - 1));
            self.reach.forget_but(searched);
        } else {
            self.reach.forget();
        }
        self.limits = None;
        for cell in 0..81u8 {
            let cands = board.cands(cell);
            if cands.count_ones() < 2 || (!x && cands.count_ones() > 2) {
                continue;
            }
            for d in digits(cands) {
                if pass == X_PASS && self.x_quiet[d as usize - 1] == Some(board.cells_with(d)) {
                    continue;
                }
                self.unary(board, pass, cell, d, links);
            }
        }
    }

    /// What the forcing chains of the first producer that rate `most`
    /// or less conclude on `board` (the solution known): each candidate
    /// such a chain proves false, as (cell, digit, false), and each it
    /// proves true, as (cell, digit, true); the X and Y links' chains
    /// (7.0 and more) first, X links' alone (6.6 and more) only where
    /// those find nothing. `None` where the solution is not known or the
    /// board has too many candidates for the rows of [`reach`].
    ///
    /// Told on the rows alone, without the searches: whether SE's search
    /// from a candidate meets its target within the longest chain that
    /// rates `most` is all that is asked, not which chain comes first.
    pub fn forcing_conclusions(
        &mut self,
        board: &Board,
        most: super::Rating,
    ) -> Option<Vec<(u8, u8, bool)>> {
        let solution = self.solution.as_ref()?;
        let mut found = Vec::new();
        self.links.build(board);
        for (y, base) in [(true, 7.0), (false, 6.6)] {
            // The longest chain (complexity) rated `most` or less.
            let limit = longest_chain(|_, bonus| tenths(base + bonus) <= most);
            if limit < 2 {
                continue;
            }
            // X links' chains stay on one digit's cells: a digit whose
            // cells are those where they proved nothing before (within
            // this limit or more), or where the X pass found no chain at
            // all, proves nothing again.
            let mut unproving = 0u16;
            if !y {
                for d in 1..=9u8 {
                    let cells = board.cells_with(d);
                    let before = self.x_unproving[d as usize - 1];
                    if self.x_quiet[d as usize - 1] == Some(cells)
                        || before.is_some_and(|(c, longest)| c == cells && limit <= longest)
                    {
                        unproving |= bit(d);
                    }
                }
            }
            if y {
                // Kept if made for the same board by the last pass of
                // cycles and forcing chains (the XY pass).
                self.reach.forget_unless_made_for(board);
            } else {
                // X links alone: rows of the digits searched.
                self.reach.forget_but(ALL & !unproving);
            }
            let mut proving = 0u16;
            for cell in 0..81u8 {
                let cands = board.cands(cell);
                if cands.count_ones() < 2 {
                    continue;
                }
                for d in digits(cands & !unproving) {
                    // Only the chain that proves the truth can exist.
                    let truth = solution[cell as usize] == d;
                    let start = Pot::new(cell, d, !truth);
                    match self.reach.finds(board, &self.links, y, start, limit) {
                        None => return None,
                        Some(true) => {
                            found.push((cell, d, truth));
                            proving |= bit(d);
                        }
                        Some(false) => {}
                    }
                }
            }
            if !y {
                for d in digits(ALL & !unproving & !proving) {
                    self.x_unproving[d as usize - 1] = Some((board.cells_with(d), limit));
                }
            }
            if !found.is_empty() {
                break;
            }
        }
        Some(found)
    }

    /// Nishio forcing chains (7.5+).
    pub fn nishio(&mut self, board: &Board) -> Option<Step> {
        self.multiple_chains(board, NISHIO)
    }

    /// Multiple (cell and region) forcing chains (8.0+).
    pub fn multiple(&mut self, board: &Board) -> Option<Step> {
        self.multiple_chains(board, MULTIPLE)
    }

    /// Dynamic forcing chains (8.5+).
    pub fn dynamic(&mut self, board: &Board) -> Option<Step> {
        self.multiple_chains(board, DYNAMIC)
    }

    fn offer(&mut self, found: Found) {
        if self.best.as_ref().is_none_or(|b| found.before(b)) {
            self.best = Some(found);
            self.limits = None;
        }
    }

    /// Could a hint of this rating, length and kind come first (if met
    /// earlier, when it ties)?
    fn wanted(&self, rating: f64, complexity: u32, kind: Kind) -> bool {
        self.best.as_ref().is_none_or(|b| {
            sort_key(rating, complexity, kind) <= sort_key(b.rating, b.complexity, b.kind)
        })
    }

    /// The branch a node stands on: its first-parent line, from the
    /// assumption to the node.
    fn branch(&self, id: NodeId) -> Vec<Pot> {
        let mut line: Vec<Pot> = (self.arena.first_parent_line(id))
            .map(|n| self.arena.pot(n))
            .collect();
        line.reverse();
        line
    }

    fn complexity(&mut self, targets: &[NodeId]) -> u32 {
        let mut total = 0;
        for &t in targets {
            total += self.arena.ancestors(t, &mut self.queue);
        }
        total
    }

    /// Cycles and forcing chains from one candidate assumed on.
    fn unary(&mut self, board: &Board, pass: usize, cell: u8, d: u8, links: (bool, bool)) {
        let (y, x) = links;
        let (kind, cycle_base, chain_base) = pass_kind(y, x);
        // Only hints that would come before the best so far matter, and a
        // chain's rating and length grow with its depth: stop the search
        // at the depth where nothing found could come first any more.
        let (cycle_limit, chain_limit) = match self.limits {
            Some(limits) => limits,
            None => {
                let cycle_limit = self.complexity_limit(cycle_base, kind);
                let chain_limit = if x {
                    self.complexity_limit(chain_base, kind)
                } else {
                    0
                };
                *self.limits.insert((cycle_limit, chain_limit))
            }
        };
        let (from_on, from_off) = self.can_prove(cell, d);
        // Searches are made only where they can find something (see
        // `reach`): nearly all find nothing, and bit rows tell that for
        // less. No cycle search where none through the start could remove
        // anything (told per component of the pass's links, so asked
        // first: X cycles' searches, on one digit, cost less than the
        // components), nor where no cycle can close.
        let start = Pot::new(cell, d, true);
        let cycle_limit = if cycle_limit >= 4
            && !((pass == X_PASS
                || self
                    .reach
                    .cycle_may_remove(board, &self.links, links, start))
                && self
                    .reach
                    .may_cycle(board, &self.links, links, start, cycle_limit))
        {
            0
        } else if pass == X_PASS || cycle_limit < 4 {
            cycle_limit
        } else {
            // No search past the last layer where a cycle can close.
            cycle_limit.min(self.reach.longest_cycle(board, &self.links, links, start))
        };
        let mut finds = |from: Pot| {
            // Too many candidates for the rows: the search is made.
            chain_limit >= 2
                && self
                    .reach
                    .finds(board, &self.links, y, from, chain_limit)
                    .unwrap_or(true)
        };
        // A forcing chain's search where it meets its target within its
        // limit (from "on", the layer `reach` counts is the search's
        // `length`; from "off", one less than its `depth + 1`); from "on"
        // also where the cycle search goes as deep anyway: in the same
        // layers, it seeks the chain at no cost.
        let on_limit = if from_on && (cycle_limit >= chain_limit || finds(start)) {
            chain_limit
        } else {
            0
        };
        let off_limit = if from_off && finds(start.flipped()) {
            chain_limit
        } else {
            0
        };
        let order = (((pass as u64 * 81 + cell as u64) * 9 + d as u64 - 1) * 3) << 32;
        // A cycle has four nodes or more; a forcing chain two or more.
        if cycle_limit < 4 && on_limit < 2 && off_limit < 2 {
            return;
        }
        self.arena.clear();
        let mut cycle = None;
        let mut chains = std::mem::take(&mut self.chains_found);
        chains.clear();
        // The cycles, and the forcing chain from "on" (the start's own
        // "off" proves it false): one search, the same links.
        let from_on = self.cycles(board, start, (y, x), (cycle_limit, on_limit), &mut cycle);
        chains.extend(from_on);
        if off_limit >= 2 {
            // From "off": the start's "on" proves it true.
            chains.extend(forcing_from_off(
                &mut self.tree,
                &mut self.arena,
                &mut self.scratch,
                &self.links,
                start.flipped(),
                y,
                off_limit,
            ));
        }
        if let Some((dst, removed)) = cycle {
            self.order = order;
            self.cycle_hint(dst, removed, kind);
        }
        for &target in &chains {
            // From "on" (an "off" target) before from "off".
            let group = if self.arena.pot(target).on() { 2 } else { 1 };
            self.order = order + (group << 32);
            self.forcing_chain_hint(board, target, kind);
        }
        self.chains_found = chains;
    }

    /// Which contradictions about candidate `d` of `cell` can exist: (its
    /// "on" leading to its "off", which proves it false; its "off" leading
    /// to its "on", which proves it true). Both unless the solution is
    /// known: every link holds in the solution, so only the one that
    /// proves the truth can.
    fn can_prove(&self, cell: u8, d: u8) -> (bool, bool) {
        match self.solution.as_ref().map(|s| s[cell as usize] == d) {
            Some(true) => (false, true),
            Some(false) => (true, false),
            None => (true, true),
        }
    }

    /// The largest length (complexity) a hint of this base rating and kind
    /// may have and still come before the best found so far, when found
    /// by a later search: a tie in (rating, length, kind) goes to the
    /// earlier, so only a strictly smaller key can come first.
    fn complexity_limit(&self, base: f64, kind: Kind) -> u32 {
        let Some(best) = &self.best else {
            return u32::MAX;
        };
        let best_key = sort_key(best.rating, best.complexity, best.kind);
        // Keys grow with the complexity: count those below the best's.
        longest_chain(|c, bonus| sort_key(base + bonus, c, kind) < best_key)
    }

    fn two_sets(&mut self, a: usize, b: usize) -> [&mut PotSet; 2] {
        let (x, y) = pair(&mut self.sets, a, b);
        [x, y]
    }

    /// The cycles back to `start` (on), breadth first, a layer of "on"s
    /// then a layer of "off"s (a cycle is a node equal to `start` reached
    /// after four or more links), into `found` the first that removes
    /// something, with its removals; and, returned, with X links, the
    /// first node that is the start's "off" (SE's forcing chain from
    /// "on", whose search follows the same links in the same order).
    /// `limits`: the longest cycle and forcing chain sought (0: none).
    /// The search runs in [`Tree`]; what it finds is grown into the arena.
    fn cycles(
        &mut self,
        board: &Board,
        start: Pot,
        links: (bool, bool),
        limits: (u32, u32),
        found: &mut Option<(NodeId, Removed)>,
    ) -> Option<NodeId> {
        let (y, x) = links;
        let (cycle_limit, chain_limit) = (limits.0, if x { limits.1 } else { 0 });
        // Still looking for a cycle / for the forcing chain?
        let mut cycling = cycle_limit >= 4;
        let mut forcing = chain_limit >= 2;
        let mut target = None;
        let tree = &mut self.tree;
        tree.start(start);
        let arena = &mut self.arena;
        let links = &self.links;
        // SE keeps every "off" met again under another parent (unless it
        // is an ancestor of that parent) and follows it again. Followed
        // again, an "off" only leads to "on"s already met, save the start:
        // so a repeat is kept (as its candidate and parent, flagged) only
        // while cycles are sought and only when it leads straight to the
        // start, to close a cycle.
        let Scratch {
            on: pending_on,
            off_visits: pending_off,
            ..
        } = &mut self.scratch;
        pending_on.clear();
        pending_off.clear();
        pending_on.push(start);
        // The "off"s that lead straight back to the start (its partners
        // by a strong link: the link is the same both ways), the only
        // ones whose repeats can close a cycle.
        let mut leads_to_start = NO_MEMBERS;
        let start_off = start.flipped();
        for partner in links.ons_of_off(start_off, y, x).iter().copied() {
            add(&mut leads_to_start, partner.flipped());
        }
        // No strong link at the start: no cycle can close.
        cycling &= leads_to_start.iter().any(|&w| w != 0);
        // `length`: the depth of the nodes a layer makes (a cycle closing
        // there has that many nodes; a forcing chain one more).
        let mut length = 0;
        while !pending_on.is_empty() || !pending_off.is_empty() {
            length += 1;
            cycling &= length <= cycle_limit;
            forcing &= length < chain_limit;
            if !cycling && !forcing {
                break;
            }
            for &p in pending_on.iter() {
                for pot in links.offs_of_on(p, y).iter().copied() {
                    if tree.contains(pot) {
                        if cycling && holds(&leads_to_start, pot) {
                            pending_off.push((pot, p, true));
                        }
                    } else if pot == start_off || links.leads_on(pot, y, x) {
                        // Never an ancestor of `p`: those were all met.
                        tree.insert(pot, p);
                        pending_off.push((pot, p, false));
                        if pot == start_off && forcing {
                            target = Some(tree.grow(arena, pot, &[]));
                            forcing = false;
                        }
                    }
                }
            }
            pending_on.clear();
            length += 1;
            cycling &= length <= cycle_limit;
            forcing &= length < chain_limit;
            if !cycling && !forcing {
                break;
            }
            for &(off, parent, repeat) in pending_off.iter() {
                if repeat {
                    if !cycling || length < 4 || tree.descends_from(parent, off) {
                        continue;
                    }
                    // Later cycles are as long or longer, and met later:
                    // the first that removes something is the one that
                    // can matter.
                    *found = removing_cycle(arena, board, tree.line(parent, &[off, start]));
                    cycling = found.is_none();
                    continue;
                }
                for pot in links.ons_of_off(off, y, x).iter().copied() {
                    if pot == start && length >= 4 && cycling {
                        *found = removing_cycle(arena, board, tree.line(off, &[start]));
                        cycling = found.is_none();
                    }
                    if !tree.contains(pot) {
                        tree.insert(pot, off);
                        pending_on.push(pot);
                    }
                }
            }
            pending_off.clear();
        }
        target
    }

    fn cycle_hint(&mut self, dst: NodeId, removed: Removed, kind: Kind) {
        let complexity = self.complexity(&[dst]);
        let base = if matches!(kind, Kind::Xy) { 7.0 } else { 6.5 };
        let rating = base + length_bonus(complexity);
        if !self.wanted(rating, complexity, kind) {
            return;
        }
        let technique = match kind {
            Kind::Xy => Technique::Cycle,
            Kind::Y => Technique::YCycle,
            _ => Technique::XCycle,
        };
        let branches = vec![self.branch(dst)];
        self.offer(Found {
            rating,
            complexity,
            kind,
            technique,
            removed,
            placed: None,
            branches,
            order: self.order,
        });
    }

    fn forcing_chain_hint(&mut self, board: &Board, target: NodeId, kind: Kind) {
        let t = self.arena.pot(target);
        let (removed, placed) = conclusion(board, t);
        if removed.is_empty() {
            return;
        }
        let complexity = self.complexity(&[target]);
        let base = if matches!(kind, Kind::Xy) { 7.0 } else { 6.6 };
        let rating = base + length_bonus(complexity);
        if !self.wanted(rating, complexity, kind) {
            return;
        }
        let technique = if matches!(kind, Kind::Xy) {
            Technique::ForcingChain
        } else {
            Technique::ForcingXChain
        };
        let branches = vec![self.branch(target)];
        self.offer(Found {
            rating,
            complexity,
            kind,
            technique,
            removed,
            placed,
            branches,
            order: self.order,
        });
    }

    /// Nishio, multiple and dynamic chains: from each candidate of each
    /// cell (two or more candidates when dynamic, three or more else),
    /// on and off.
    fn multiple_chains(&mut self, board: &Board, mode: Mode) -> Option<Step> {
        self.start_multiple(board, mode);
        let cells: Vec<u8> = (0..81u8)
            .filter(|&cell| {
                let n = board.cands(cell).count_ones();
                (n > 2 || (n > 1 && mode.dynamic)) && self.may_conclude(board, cell, mode)
            })
            .collect();
        if mode.multiple && !mode.dynamic {
            if let Some(least) = self.least_keys(board, &cells, mode) {
                self.cells_that_may_come_first(board, &cells, &least, mode);
                return self.best.take().map(Found::into_step);
            }
        }
        for cell in cells {
            self.order = u64::from(cell) << 32;
            self.chains_of_cell(board, cell, mode);
        }
        self.best.take().map(Found::into_step)
    }

    /// Ready for a pass of Nishio, multiple or dynamic chains over
    /// `board`: nothing found yet, no chain kept from another board.
    fn start_multiple(&mut self, board: &Board, mode: Mode) {
        self.best = None;
        self.order = 0;
        self.arena.clear();
        self.remembered.forget();
        if !mode.dynamic {
            // The board stays as it is through every chain: its links are
            // listed once.
            self.links.build(board);
        }
        // The rows of `reach` are made again for multiple chains' links,
        // unless made for them on this board (by the last pass before).
        self.reach.forget_unless_made_for(board);
    }

    /// Per cell of `cells`, the least sort key its static multiple
    /// chains can have (see [`reach::Reach::least_lengths`]), [`NO_KEY`]
    /// where it has no conclusion; `None` where the rows do not fit the
    /// board.
    fn least_keys(&mut self, board: &Board, cells: &[u8], mode: Mode) -> Option<Vec<Key>> {
        cells
            .iter()
            .map(|&cell| {
                let (by_cell, by_region) = self.reach.least_lengths(board, &self.links, cell)?;
                let key = |length: u32, kind: Kind| {
                    if length == u32::MAX {
                        NO_KEY
                    } else {
                        sort_key(mode.base + length_bonus(length), length, kind)
                    }
                };
                let (a, b) = (key(by_cell, Kind::Cell), key(by_region, Kind::Region));
                Some(if b < a { b } else { a })
            })
            .collect()
    }

    /// The chains of those `cells` (with their `least` keys) whose hints
    /// could still come first: the cell of the least key searched first
    /// (its hint bounds the others), then the rest in order, each unless
    /// its least key comes after the best found (or ties with it and the
    /// cell comes later: a tie goes to the earlier). Each cell's hints are
    /// ordered by the cell first, so the order searched does not change
    /// which comes first.
    fn cells_that_may_come_first(
        &mut self,
        board: &Board,
        cells: &[u8],
        least: &[Key],
        mode: Mode,
    ) {
        let Some(first) = (0..cells.len())
            .filter(|&i| least[i] != NO_KEY)
            .min_by(|&i, &j| least[i].partial_cmp(&least[j]).expect("no NaN"))
        else {
            return;
        };
        for i in std::iter::once(first).chain((0..cells.len()).filter(|&i| i != first)) {
            let cell = cells[i];
            if least[i] == NO_KEY {
                continue;
            }
            if let Some(best) = &self.best {
                let best_key = sort_key(best.rating, best.complexity, best.kind);
                let best_cell = (best.order >> 32) as u8;
                let comes_after = least[i] > best_key || (least[i] == best_key && cell > best_cell);
                if comes_after {
                    continue;
                }
            }
            self.order = u64::from(cell) << 32;
            self.chains_of_cell(board, cell, mode);
        }
    }

    /// False where [`Chains::chains_of_cell`] would find nothing, told
    /// for less than its searches cost: Nishio's chains meet no
    /// contradiction (`one_digit`), multiple chains conclude nothing
    /// (`reach`). Most cells of those passes, on hard puzzles. Dynamic
    /// chains' cells are all searched: told on cell masks, their sets
    /// cost about what the searches do.
    fn may_conclude(&mut self, board: &Board, cell: u8, mode: Mode) -> bool {
        if mode.nishio {
            digits(board.cands(cell)).any(|d| self.nishio_proves(board, d) & 1 << cell != 0)
        } else if !mode.dynamic {
            self.reach.may_conclude(board, &self.links, cell)
        } else {
            true
        }
    }

    /// The cells where a Nishio chain on digit `d` (from the candidate
    /// on, or off, as `can_prove` says) meets a contradiction.
    fn nishio_proves(&mut self, board: &Board, d: u8) -> u128 {
        let places = board.cells_with(d);
        match self.nishio_proving[d as usize - 1] {
            Some((cells, proving)) if cells == places => proving,
            _ => {
                let proving = cells_of(places)
                    .filter(|&cell| {
                        let (from_on, from_off) = self.can_prove(cell, d);
                        let on = Pot::new(cell, d, true);
                        (from_on && one_digit::contradicts(places, on))
                            || (from_off && one_digit::contradicts(places, on.flipped()))
                    })
                    .fold(0, |m, c| m | 1 << c);
                self.nishio_proving[d as usize - 1] = Some((places, proving));
                proving
            }
        }
    }

    fn chains_of_cell(&mut self, board: &Board, cell: u8, mode: Mode) {
        if mode.nishio {
            // No chain is searched twice (no region chains): nothing kept.
            self.arena.clear();
        }
        let cands = board.cands(cell);
        let n = cands.count_ones();
        let mut first = true;
        for d in digits(cands) {
            let (on, off) = (VALUE_ON + d as usize - 1, VALUE_OFF + d as usize - 1);
            self.sets[on].clear();
            self.sets[off].clear();
            let double = n >= 3 && !mode.nishio && mode.dynamic;
            let contradiction = mode.dynamic || mode.nishio;
            self.binary(board, cell, d, mode, double, contradiction);
            // Nishio makes neither region nor cell hints.
            if mode.nishio {
                continue;
            }
            self.region_chains(board, cell, d, mode);
            // What every digit implies: the members only (a branch's node
            // is read from its digit's set).
            if first {
                let [a, b] = self.two_sets(on, CELL_ON);
                b.copy_members(a);
                let [a, b] = self.two_sets(off, CELL_OFF);
                b.copy_members(a);
                first = false;
            } else {
                let [a, b] = self.two_sets(on, CELL_ON);
                b.retain_in(a);
                let [a, b] = self.two_sets(off, CELL_OFF);
                b.retain_in(a);
            }
        }
        if !mode.nishio && (n == 2 || (mode.multiple && n > 2)) {
            let mut targets = std::mem::take(&mut self.targets);
            for (set, values) in [(CELL_ON, VALUE_ON), (CELL_OFF, VALUE_OFF)] {
                self.sets[set].members(&mut targets);
                for &t in &targets {
                    let branches: Vec<NodeId> = digits(cands)
                        .map(|d| {
                            self.sets[values + d as usize - 1]
                                .get(t)
                                .expect("in every digit's set")
                        })
                        .collect();
                    let technique = if mode.dynamic {
                        Technique::DynamicCellForcingChains
                    } else {
                        Technique::CellForcingChains
                    };
                    self.reduction_hint(board, t, &branches, mode, Kind::Cell, technique);
                }
            }
            self.targets = targets;
        }
    }

    /// A conclusion every branch reaches (a cell's digits, a region's
    /// places, or both states of a candidate).
    fn reduction_hint(
        &mut self,
        board: &Board,
        target: Pot,
        branches: &[NodeId],
        mode: Mode,
        kind: Kind,
        technique: Technique,
    ) {
        let (removed, placed) = conclusion(board, target);
        if removed.is_empty() {
            return;
        }
        // Most conclusions come too late to be taken (93% on hard
        // puzzles): a bound from the branches' depths tells most of them
        // without walking their ancestors.
        let least: u32 = branches
            .iter()
            .map(|&b| self.arena.least_ancestors(b))
            .sum();
        if !self.wanted(mode.base + length_bonus(least), least, kind) {
            return;
        }
        let complexity = self.complexity(branches);
        debug_assert!(complexity >= least, "{complexity} < {least}");
        let rating = mode.base + length_bonus(complexity);
        if !self.wanted(rating, complexity, kind) {
            return;
        }
        let lines = branches.iter().map(|&b| self.branch(b)).collect();
        self.offer(Found {
            rating,
            complexity,
            kind,
            technique,
            removed,
            placed,
            branches: lines,
            order: self.order,
        });
        self.order += 1;
    }

    /// The candidate `d` of `cell` on, then off: contradictions (Nishio,
    /// dynamic) and conclusions both reach (dynamic, cells of three or
    /// more candidates). Leaves what "on" implies in the digit's sets.
    fn binary(&mut self, board: &Board, cell: u8, d: u8, mode: Mode, double: bool, contra: bool) {
        let (on, off) = (VALUE_ON + d as usize - 1, VALUE_OFF + d as usize - 1);
        let p_on = Pot::new(cell, d, true);
        // Nishio seeks only contradictions, so only those that can exist.
        let (from_on, from_off) = if mode.nishio {
            self.can_prove(cell, d)
        } else {
            (true, true)
        };
        let absurd = if from_on {
            self.chain_from_on(board, p_on, on, off, mode)
        } else {
            let start = self.arena.root(p_on);
            self.sets[on].insert(p_on, start);
            None
        };
        let (technique, kind) = if mode.nishio {
            (Technique::NishioForcingChains, Kind::Contradiction)
        } else {
            (Technique::ContradictionForcingChains, Kind::Contradiction)
        };
        if contra {
            if let Some((a, b)) = absurd {
                // The candidate cannot be on.
                let t = p_on.flipped();
                self.binary_hint(board, t, a, b, mode, kind, technique);
            }
        }
        // The chain from "off" serves its contradiction, which proves the
        // candidate true (so only where it is, when the solution is
        // known), and double forcing: static multiple chains use neither.
        if !from_off || !(double || (contra && self.can_prove(cell, d).1)) {
            return;
        }
        let p_off = Pot::new(cell, d, false);
        let start_off = self.arena.root(p_off);
        self.sets[FROM_OFF_ON].clear();
        self.sets[FROM_OFF_OFF].clear();
        self.sets[FROM_OFF_OFF].insert(p_off, start_off);
        let absurd = self.chain(board, FROM_OFF_ON, FROM_OFF_OFF, mode);
        if contra {
            if let Some((a, b)) = absurd {
                // The candidate cannot be off.
                self.binary_hint(board, p_on, a, b, mode, kind, technique);
            }
        }
        if double {
            let mut targets = std::mem::take(&mut self.targets);
            for (from_on, from_off) in [(on, FROM_OFF_ON), (off, FROM_OFF_OFF)] {
                self.sets[from_on].members(&mut targets);
                for &t in &targets {
                    if let Some(b) = self.sets[from_off].get(t) {
                        let a = self.sets[from_on].get(t).expect("listed");
                        self.binary_hint(
                            board,
                            t,
                            a,
                            b,
                            mode,
                            Kind::DoubleForcing,
                            Technique::DoubleForcingChains,
                        );
                    }
                }
            }
            self.targets = targets;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn binary_hint(
        &mut self,
        board: &Board,
        target: Pot,
        a: NodeId,
        b: NodeId,
        mode: Mode,
        kind: Kind,
        technique: Technique,
    ) {
        self.reduction_hint(board, target, &[a, b], mode, kind, technique);
    }

    /// Region forcing chains for digit `d` from `cell`, in each of its box,
    /// row and column where `cell` is the digit's first place.
    fn region_chains(&mut self, board: &Board, cell: u8, d: u8, mode: Mode) {
        let (on, off) = (VALUE_ON + d as usize - 1, VALUE_OFF + d as usize - 1);
        for u in units_of(cell) {
            let places = board.positions(u, d);
            let count = places.count_ones();
            if !(count == 2 || (mode.multiple && count > 2)) {
                continue;
            }
            if UNIT_CELLS[u][places.trailing_zeros() as usize] != cell {
                continue;
            }
            // What every place implies: the members only (a branch's node
            // is read from its place's set).
            let [a, b] = self.two_sets(on, REGION_ON);
            b.copy_members(a);
            let [a, b] = self.two_sets(off, REGION_OFF);
            b.copy_members(a);
            // Each other place of the digit, on.
            let mut branch_sets = Vec::new();
            let mut rest = places & (places - 1);
            let mut slot = 0;
            while rest != 0 {
                let k = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let other = UNIT_CELLS[u][k];
                let (son, soff) = (POS_ON + slot, POS_OFF + slot);
                slot += 1;
                self.chain_from_on(board, Pot::new(other, d, true), son, soff, mode);
                let [a, b] = self.two_sets(REGION_ON, son);
                a.retain_in(b);
                let [a, b] = self.two_sets(REGION_OFF, soff);
                a.retain_in(b);
                branch_sets.push((son, soff));
                // Nothing common left: the other places' chains can wait
                // for their own cells (they are the same chains then).
                if self.sets[REGION_ON].is_empty() && self.sets[REGION_OFF].is_empty() {
                    break;
                }
            }
            if rest != 0 {
                continue;
            }
            let technique = if mode.dynamic {
                Technique::DynamicRegionForcingChains
            } else {
                Technique::RegionForcingChains
            };
            let mut targets = std::mem::take(&mut self.targets);
            for (set, own, pick) in [(REGION_ON, on, 0), (REGION_OFF, off, 1)] {
                self.sets[set].members(&mut targets);
                for &t in &targets {
                    let mut branches = vec![self.sets[own].get(t).expect("own place")];
                    for &(son, soff) in &branch_sets {
                        let s = if pick == 0 { son } else { soff };
                        branches.push(self.sets[s].get(t).expect("in every place's set"));
                    }
                    self.reduction_hint(board, t, &branches, mode, Kind::Region, technique);
                }
            }
            self.targets = targets;
        }
    }

    /// The chain from `pot` alone, on: the sets `on` and `off` filled as
    /// [`Chains::chain`] fills them from it, and its contradiction. Outside
    /// Nishio (whose chains are each searched once) the result is kept
    /// for the rest of the search over this board, and given again.
    fn chain_from_on(
        &mut self,
        board: &Board,
        pot: Pot,
        on: usize,
        off: usize,
        mode: Mode,
    ) -> Option<(NodeId, NodeId)> {
        self.sets[on].clear();
        self.sets[off].clear();
        if !mode.nishio {
            if let Some(kept) = self.remembered.get(pot) {
                let (to_on, to_off) = pair(&mut self.sets, on, off);
                to_on.fill(&kept.on);
                to_off.fill(&kept.off);
                return kept.absurd;
            }
        }
        let start = self.arena.root(pot);
        self.sets[on].insert(pot, start);
        let absurd = self.chain(board, on, off, mode);
        if !mode.nishio {
            let (to_on, to_off) = pair(&mut self.sets, on, off);
            self.remembered.keep(pot, to_on, to_off, absurd);
        }
        absurd
    }

    /// Completes the sets `on` and `off` with all they imply: pending "on"s
    /// first, one "off" when none is left. Returns the two nodes of a
    /// contradiction (a candidate both on and off), if one is met.
    fn chain(
        &mut self,
        board: &Board,
        on: usize,
        off: usize,
        mode: Mode,
    ) -> Option<(NodeId, NodeId)> {
        // Dynamic chains take each "off" out of a working copy of the
        // board as they go, and read their links from it; static ones read
        // the links listed for the board (see `multiple_chains`).
        let mut work = mode.dynamic.then(|| WorkGrid::of(board));
        let Scratch {
            queue_on: pending_on,
            queue_off: pending_off,
            offs,
            ons,
            ..
        } = &mut self.scratch;
        pending_on.clear();
        pending_off.clear();
        for (queue, set) in [
            (&mut *pending_on, &self.sets[on]),
            (&mut *pending_off, &self.sets[off]),
        ] {
            queue.extend(set.entries().map(|(_, node)| node));
        }
        let (to_on, to_off) = pair(&mut self.sets, on, off);
        let arena = &mut self.arena;
        let links = &self.links;
        loop {
            if let Some(p) = pending_on.pop_front() {
                let implied = match &work {
                    Some(work) => {
                        on_to_off(work, arena.pot(p), mode.y, offs);
                        &offs[..]
                    }
                    None => links.offs_of_on(arena.pot(p), mode.y),
                };
                for &pot in implied {
                    if let Some(c) = to_on.get(pot.flipped()) {
                        return Some((c, arena.child(pot, p)));
                    }
                    if !to_off.contains(pot) {
                        let n = arena.child(pot, p);
                        to_off.insert_new(pot, n);
                        pending_off.push_back(n);
                    }
                }
                continue;
            }
            if let Some(p) = pending_off.pop_front() {
                let Some(work) = &mut work else {
                    for &pot in links.ons_of_off(arena.pot(p), mode.y, true) {
                        if let Some(c) = to_off.get(pot.flipped()) {
                            return Some((arena.child(pot, p), c));
                        }
                        if !to_on.contains(pot) {
                            let n = arena.child(pot, p);
                            to_on.insert_new(pot, n);
                            pending_on.push_back(n);
                        }
                    }
                    continue;
                };
                off_to_on(work, arena.pot(p), mode.y, true, ons);
                // (The nodes' hidden parents are read before `p` itself
                // leaves the working grid.)
                for &(pot, via) in ons.iter() {
                    if let Some(c) = to_off.get(pot.flipped()) {
                        return Some((on_node(arena, work, board, to_off, p, pot, via), c));
                    }
                    if !to_on.contains(pot) {
                        let n = on_node(arena, work, board, to_off, p, pot, via);
                        to_on.insert_new(pot, n);
                        pending_on.push_back(n);
                    }
                }
                let pot = arena.pot(p);
                work.eliminate(pot.cell(), pot.digit());
                continue;
            }
            return None;
        }
    }
}

/// The cycle whose nodes are `line` (from the start, closing on it
/// again) grown into `arena`, with what it removes, if it removes
/// anything.
fn removing_cycle(arena: &mut Arena, board: &Board, line: &[Pot]) -> Option<(NodeId, Removed)> {
    // The start is both ends: counted once.
    let removed = cycle_removals(board, &line[1..]);
    (!removed.is_empty()).then(|| (grow(arena, line), removed))
}

/// What a cycle through the candidates-with-state `cycle` (each once)
/// removes: the candidates outside its cells that see one of its nodes of
/// their digit in both orientations (an "on" and an "off").
fn cycle_removals(board: &Board, cycle: &[Pot]) -> Removed {
    let cells = cycle.iter().fold(0u128, |m, p| m | cell_bit(p.cell()));
    // Per digit, the cells off the cycle that see one of its "on"s
    // (`forward`) and one of its "off"s (`backward`).
    let mut forward = [0u128; 9];
    let mut backward = [0u128; 9];
    for p in cycle {
        let seen = PEER_MASKS[p.cell() as usize] & board.cells_with(p.digit()) & !cells;
        let side = if p.on() { &mut forward } else { &mut backward };
        side[p.digit() as usize - 1] |= seen;
    }
    let mut removed_cells = 0;
    for (f, b) in forward.iter_mut().zip(backward) {
        *f &= b;
        removed_cells |= *f;
    }
    cells_of(removed_cells)
        .map(|c| {
            let digits = (0..9).filter(|&d| forward[d] & (1 << c) != 0);
            (c, digits.fold(0, |m, d| m | 1 << d))
        })
        .collect()
}

/// Two different sets of `sets`, mutable together.
fn pair(sets: &mut [PotSet], a: usize, b: usize) -> (&mut PotSet, &mut PotSet) {
    if a < b {
        let (lo, hi) = sets.split_at_mut(b);
        (&mut lo[a], &mut hi[0])
    } else {
        let (lo, hi) = sets.split_at_mut(a);
        (&mut hi[0], &mut lo[b])
    }
}

/// SE's forcing chain from "off": breadth first from `start` (a
/// candidate assumed off, alone in `to_off`), a layer of "on"s then of
/// "off"s, to the first node that is the start's "on" (which proves it),
/// if one stands on at most `limit` nodes. (The chain from "on" comes out
/// of the cycle search: see [`Chains::cycles`].)
fn forcing_from_off(
    tree: &mut Tree,
    arena: &mut Arena,
    scratch: &mut Scratch,
    links: &Links,
    start: Pot,
    y: bool,
    limit: u32,
) -> Option<NodeId> {
    let Scratch {
        on: pending_on,
        off: pending_off,
        ..
    } = scratch;
    pending_on.clear();
    pending_off.clear();
    pending_off.push(start);
    tree.start(start);
    let target = start.flipped();
    // A node made at depth k stands on k + 1 nodes; the first layer is
    // the start's "off".
    let mut depth = 1;
    while !pending_off.is_empty() {
        if depth + 1 > limit {
            return None;
        }
        for &p in pending_off.iter() {
            for pot in links.ons_of_off(p, y, true).iter().copied() {
                if pot == target {
                    return Some(tree.grow(arena, p, &[pot]));
                }
                if !tree.contains(pot) {
                    tree.insert(pot, p);
                    pending_on.push(pot);
                }
            }
        }
        pending_off.clear();
        if pending_on.is_empty() {
            return None;
        }
        depth += 1;
        if depth + 1 > limit {
            return None;
        }
        for &p in pending_on.iter() {
            for pot in links.offs_of_on(p, y).iter().copied() {
                if !tree.contains(pot) && links.leads_on(pot, y, true) {
                    tree.insert(pot, p);
                    pending_off.push(pot);
                }
            }
        }
        pending_on.clear();
        depth += 1;
    }
    None
}

/// What a conclusion on `target` does: an "off" removes the candidate; an
/// "on" places the digit (the cell's other candidates go).
fn conclusion(board: &Board, target: Pot) -> (Removed, Option<(u8, u8)>) {
    let (cell, d) = (target.cell(), target.digit());
    if target.on() {
        let others = board.cands(cell) & !bit(d);
        if others == 0 {
            return (Vec::new(), None);
        }
        (vec![(cell, others)], Some((cell, d)))
    } else {
        (vec![(cell, bit(d))], None)
    }
}

/// The grid a dynamic chain works on: a board's candidates, per cell and
/// per digit (a cell mask), which is all its links read. A chain takes
/// many candidates out of it, each taken out of two words (the board's
/// units' positions are not kept), and it is copied for each chain (320
/// bytes, not the board's 880).
#[derive(Clone)]
struct WorkGrid {
    cands: [u16; 81],
    cells_with: [u128; 9],
}

impl WorkGrid {
    fn of(board: &Board) -> WorkGrid {
        WorkGrid {
            cands: std::array::from_fn(|c| board.cands(c as u8)),
            cells_with: board.candidate_cells(),
        }
    }

    #[inline]
    fn cands(&self, cell: u8) -> u16 {
        self.cands[cell as usize]
    }

    #[inline]
    fn cells_with(&self, d: u8) -> u128 {
        self.cells_with[d as usize - 1]
    }

    /// Takes candidate `d` out of `cell`.
    fn eliminate(&mut self, cell: u8, d: u8) {
        self.cands[cell as usize] &= !bit(d);
        self.cells_with[d as usize - 1] &= !cell_bit(cell);
    }
}

/// The "off"s an "on" candidate implies: with Y links the cell's other
/// digits (in order), then the digit in the box, row and column (each
/// cell once).
fn on_to_off(grid: &WorkGrid, pot: Pot, y: bool, out: &mut Vec<Pot>) {
    out.clear();
    let (cell, d) = (pot.cell(), pot.digit());
    each_off(grid.cands(cell), grid.cells_with(d), cell, d, y, |off| {
        out.push(off)
    });
}

/// Calls `found` with each "off" of [`on_to_off`]'s list for candidate
/// `d` of `cell` (with Y links if `y`), in its order, from the cell's
/// candidates `cands` and the digit's cells `places`.
#[inline(always)]
fn each_off(cands: u16, places: u128, cell: u8, d: u8, y: bool, mut found: impl FnMut(Pot)) {
    if y {
        for v in digits(cands & !bit(d)) {
            found(Pot::new(cell, v, false));
        }
    }
    // The digit's places in the box's other cells, then in the row's and
    // the column's outside the box, each in cell order.
    for part in X_PEERS[cell as usize] {
        for c in cells_of(places & part) {
            found(Pot::new(c, d, false));
        }
    }
}

/// How an "on" follows from an "off": the cell's other candidate, or the
/// digit's other place in unit `u`.
#[derive(Clone, Copy)]
enum Via {
    Cell,
    Unit(usize),
}

/// The "on"s an "off" candidate implies: with Y links the other digit of
/// a bivalue cell; with X links the digit's only other place in the box,
/// the row, the column.
fn off_to_on(grid: &WorkGrid, pot: Pot, y: bool, x: bool, out: &mut Vec<(Pot, Via)>) {
    out.clear();
    let (cell, d) = (pot.cell(), pot.digit());
    each_on(
        grid.cands(cell),
        grid.cells_with(d),
        cell,
        d,
        (y, x),
        |on, via| out.push((on, via)),
    );
}

/// Calls `found` with each "on" of [`off_to_on`]'s list for candidate `d`
/// of `cell` (with the `links`, Y and X), in its order, from the cell's
/// candidates `cands` and the digit's cells `places`.
#[inline(always)]
fn each_on(
    cands: u16,
    places: u128,
    cell: u8,
    d: u8,
    links: (bool, bool),
    mut found: impl FnMut(Pot, Via),
) {
    let (y, x) = links;
    if y && cands.count_ones() == 2 {
        let low = cands.trailing_zeros() as u8 + 1;
        let other = if low == d {
            (cands & (cands - 1)).trailing_zeros() as u8 + 1
        } else {
            low
        };
        found(Pot::new(cell, other, true), Via::Cell);
    }
    if x {
        let others = places & !cell_bit(cell);
        for u in units_of(cell) {
            let in_unit = others & UNIT_MASKS[u];
            if in_unit.count_ones() == 1 {
                found(
                    Pot::new(in_unit.trailing_zeros() as u8, d, true),
                    Via::Unit(u),
                );
            }
        }
    }
}

/// The node of an "on" reached from `parent` by `via` in a dynamic chain:
/// the candidates the chain removed from `source` (the board before the
/// chain) that the link needs become parents too, found in `offs`.
fn on_node(
    arena: &mut Arena,
    grid: &WorkGrid,
    source: &Board,
    offs: &PotSet,
    parent: NodeId,
    pot: Pot,
    via: Via,
) -> NodeId {
    let n = arena.child(pot, parent);
    let (cell, d) = (pot.cell(), pot.digit());
    match via {
        Via::Cell => {
            for v in digits(source.cands(cell) & !grid.cands(cell)) {
                if let Some(h) = offs.get(Pot::new(cell, v, false)) {
                    arena.add_parent(n, h);
                }
            }
        }
        Via::Unit(u) => {
            let gone = (source.cells_with(d) & !grid.cells_with(d)) & UNIT_MASKS[u];
            for c in cells_of(gone) {
                if let Some(h) = offs.get(Pot::new(c, d, false)) {
                    arena.add_parent(n, h);
                }
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_bonus_follows_se_thresholds() {
        // complexity - 2 passes 4, 6, 8, 12, 16, 24, ...
        let steps: Vec<u16> = [6, 7, 8, 9, 10, 11, 14, 15, 18, 19, 26, 27]
            .iter()
            .map(|&c| tenths(length_bonus(c)))
            .collect();
        assert_eq!(steps, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
        // SE's doubles: 6.6 + 0.1 is just under 6.7, and prints 6.7.
        assert!(6.6 + length_bonus(7) < 6.7);
        assert_eq!(tenths(6.6 + length_bonus(7)), 67);
    }

    /// The links as SE defines them, cell by cell through each unit's
    /// list of cells: from an "on", the cell's other digits, then the
    /// digit in the box's, the row's and the column's other cells (each
    /// cell once); from an "off", a bivalue cell's other digit, then the
    /// digit's only other place in the box, the row, the column.
    fn links_by_units(board: &Board, cell: u8, d: u8, y: bool, x: bool) -> (Vec<Pot>, Vec<Pot>) {
        let (mut offs, mut ons) = (Vec::new(), Vec::new());
        let cands = board.cands(cell);
        if y {
            offs.extend(digits(cands & !bit(d)).map(|v| Pot::new(cell, v, false)));
            if cands.count_ones() == 2 {
                ons.extend(digits(cands & !bit(d)).map(|v| Pot::new(cell, v, true)));
            }
        }
        for u in units_of(cell) {
            let others: Vec<u8> = UNIT_CELLS[u]
                .iter()
                .copied()
                .filter(|&c| c != cell && board.has(c, d))
                .collect();
            for &c in &others {
                if !offs.contains(&Pot::new(c, d, false)) {
                    offs.push(Pot::new(c, d, false));
                }
            }
            if x && others.len() == 1 {
                ons.push(Pot::new(others[0], d, true));
            }
        }
        (offs, ons)
    }

    /// The lists `Links::build` makes, and what [`on_to_off`] and
    /// [`off_to_on`] give on a dynamic chain's working grid, are the links
    /// walked unit by unit, in their order, on boards thinned to few
    /// candidates (bivalue cells, units with two places) and on fuller.
    #[test]
    fn links_list_the_links_in_order() {
        let mut links = Links::new();
        let (mut offs, mut ons) = (Vec::new(), Vec::new());
        let mut checked = 0;
        crate::tasks::grade::test_boards::each_thinned(20, 4, 3, 5, |line, _, board, _| {
            links.build(board);
            let grid = WorkGrid::of(board);
            for cell in 0..81u8 {
                for d in digits(board.cands(cell)) {
                    for y in [false, true] {
                        let (expected_offs, _) = links_by_units(board, cell, d, y, true);
                        on_to_off(&grid, Pot::new(cell, d, true), y, &mut offs);
                        assert_eq!(offs, expected_offs, "{line} {cell} {d}");
                        let listed = links.offs_of_on(Pot::new(cell, d, true), y);
                        assert_eq!(listed, &expected_offs[..], "{line} {cell} {d}");
                        for x in [false, true] {
                            let (_, expected_ons) = links_by_units(board, cell, d, y, x);
                            off_to_on(&grid, Pot::new(cell, d, false), y, x, &mut ons);
                            let found: Vec<Pot> = ons.iter().map(|&(p, _)| p).collect();
                            assert_eq!(found, expected_ons, "{line} {cell} {d}");
                            let listed = links.ons_of_off(Pot::new(cell, d, false), y, x);
                            assert_eq!(listed, &expected_ons[..], "{line} {cell} {d}");
                            checked += expected_ons.len();
                        }
                    }
                }
            }
        });
        assert!(checked > 1000, "{checked}");
    }

    /// Every candidate-with-state gives back its cell, digit and state
    /// (the cell and digit read from `CELL_AND_DIGIT`), and its flip the
    /// same candidate in the other state.
    #[test]
    fn pots_give_back_their_cell_digit_and_state() {
        for cell in 0..81u8 {
            for d in 1..=9u8 {
                for on in [false, true] {
                    let p = Pot::new(cell, d, on);
                    assert_eq!((p.cell(), p.digit(), p.on()), (cell, d, on));
                    assert_eq!(p.flipped(), Pot::new(cell, d, !on));
                    assert!((p.0 as usize) < POTS);
                }
            }
        }
    }

    /// Lists made again only where they can have changed (a board a few
    /// candidates from the one listed last) are those made afresh: one
    /// `Links` follows boards that lose a candidate at a time, a
    /// placement (a cell and its peers changing at once), and then the
    /// whole board again (candidates coming back), each time compared
    /// with a new one's lists of every candidate.
    #[test]
    fn links_made_again_where_changed_are_those_made_afresh() {
        use rand::Rng;
        let mut kept = Links::new();
        let mut compared = 0;
        let same = |kept: &Links, board: &Board, compared: &mut usize| {
            let mut fresh = Links::new();
            fresh.build(board);
            for cell in 0..81u8 {
                for d in digits(board.cands(cell)) {
                    let (on, off) = (Pot::new(cell, d, true), Pot::new(cell, d, false));
                    for y in [false, true] {
                        assert_eq!(
                            kept.offs_of_on(on, y),
                            fresh.offs_of_on(on, y),
                            "{cell} {d}"
                        );
                        for x in [false, true] {
                            let (a, b) = (kept.ons_of_off(off, y, x), fresh.ons_of_off(off, y, x));
                            assert_eq!(a, b, "{cell} {d}");
                        }
                    }
                    *compared += 1;
                }
            }
        };
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (_, start, solution) in crate::tasks::grade::test_boards::sample(12) {
            let mut board = start.clone();
            for _ in 0..30 {
                let cell = rng.gen_range(0..81u8);
                let wrong = board.cands(cell) & !bit(solution.cells()[cell as usize]);
                if wrong != 0 {
                    board.eliminate(cell, wrong.trailing_zeros() as u8 + 1);
                }
                kept.build(&board);
                same(&kept, &board, &mut compared);
            }
            if let Some(cell) = (0..81u8).find(|&c| board.cands(c).count_ones() > 1) {
                board.place(cell, solution.cells()[cell as usize]);
                kept.build(&board);
                same(&kept, &board, &mut compared);
            }
            kept.build(&start);
            same(&kept, &start, &mut compared);
        }
        assert!(compared > 50_000, "{compared}");
    }

    /// Each cell's static multiple chains, searched alone (no hint
    /// before them to bound them), come no shorter than the rows' least
    /// lengths say, for cell and for region hints apart; and the bound
    /// is met exactly on some, on sample boards thinned more and more.
    #[test]
    fn least_lengths_bound_each_cells_multiple_chains() {
        let (mut hints, mut exact) = (0, 0);
        crate::tasks::grade::test_boards::each_thinned(60, 4, 6, 36, |line, round, board, _| {
            let mut chains = Chains::new();
            chains.start_multiple(board, MULTIPLE);
            for cell in 0..81u8 {
                if board.cands(cell).count_ones() < 3 {
                    continue;
                }
                let Some((by_cell, by_region)) =
                    chains.reach.least_lengths(board, &chains.links, cell)
                else {
                    continue;
                };
                chains.best = None;
                chains.chains_of_cell(board, cell, MULTIPLE);
                let Some(best) = chains.best.take() else {
                    continue;
                };
                let least = match best.kind {
                    Kind::Cell => by_cell,
                    _ => by_region,
                };
                assert!(
                    best.complexity >= least,
                    "{line}, round {round}, cell {cell}: {} < {least}",
                    best.complexity
                );
                hints += 1;
                exact += usize::from(best.complexity == least);
            }
        });
        assert!(
            hints > 3_000 && exact > 1_000,
            "{hints} hints, {exact} exact"
        );
    }

    /// Static multiple chains searched only in the cells whose least keys
    /// may come first give the step that searching every cell gives, on
    /// sample boards thinned more and more.
    #[test]
    fn multiple_chains_of_the_cells_that_may_come_first_are_those_of_all() {
        let mut found = 0;
        crate::tasks::grade::test_boards::each_thinned(60, 5, 6, 37, |line, round, board, _| {
            let mut chains = Chains::new();
            let pruned = chains.multiple(board);
            // Every cell, as the search was before the least keys.
            chains.start_multiple(board, MULTIPLE);
            for cell in 0..81u8 {
                if board.cands(cell).count_ones() > 2 && chains.may_conclude(board, cell, MULTIPLE)
                {
                    chains.order = u64::from(cell) << 32;
                    chains.chains_of_cell(board, cell, MULTIPLE);
                }
            }
            let every = chains.best.take().map(Found::into_step);
            assert_eq!(pruned, every, "{line}, round {round}");
            found += usize::from(every.is_some());
        });
        assert!(found > 200, "{found}");
    }

    /// The bound that spares most conclusions their ancestors' walk is
    /// never above the walk's count, on every node the dynamic and the
    /// multiple chains of sample boards leave in the arena.
    #[test]
    fn least_ancestors_bound_the_ancestors() {
        let mut queue = Vec::new();
        let mut nodes = 0;
        let mut above = 0;
        for (line, board, _) in crate::tasks::grade::test_boards::sample(6) {
            let mut chains = Chains::new();
            for multiple in [true, false] {
                if multiple {
                    chains.multiple(&board);
                } else {
                    chains.dynamic(&board);
                }
                let arena = &chains.arena;
                for id in 0..arena.nodes.len() as NodeId {
                    let (least, all) = (arena.least_ancestors(id), arena.ancestors(id, &mut queue));
                    assert!(least <= all, "{line}: node {id}, {least} > {all}");
                    nodes += 1;
                    above += (all > least) as u32;
                }
            }
        }
        // Enough nodes, and some with parents beside their line.
        assert!(nodes > 10_000 && above > 0, "{nodes} {above}");
    }

    /// A layer gives back what was pushed, in order, up to its room, and
    /// nothing after it is cleared; one pushed past its room panics when
    /// read rather than give items written over.
    #[test]
    fn layers_hold_what_was_pushed_up_to_their_room() {
        let mut layer: Layer<(Pot, Pot, bool), 8> = Layer::default();
        for round in 0..2u16 {
            layer.clear();
            assert!(layer.is_empty());
            for k in 0..8 {
                layer.push((Pot(k + round), Pot(k * 2), k % 3 == 0));
            }
            let got: Vec<_> = layer.iter().copied().collect();
            let want: Vec<_> = (0..8)
                .map(|k| (Pot(k + round), Pot(k * 2), k % 3 == 0))
                .collect();
            assert_eq!(got, want);
        }
        let overfull = std::panic::catch_unwind(|| {
            let mut layer: Layer<Pot, 4> = Layer::default();
            for k in 0..5 {
                layer.push(Pot(k));
            }
            layer.iter().count()
        });
        assert!(overfull.is_err());
    }

    /// A copy of the members holds the other set's candidates in order,
    /// and nothing it held before; intersections keep the order of what
    /// stays; a set filled from a kept chain is that chain's; and the
    /// sets stay apart afterwards.
    #[test]
    fn pot_set_copies_intersections_and_fills() {
        let pots = [
            Pot::new(80, 9, true),
            Pot::new(0, 1, false),
            Pot::new(40, 5, true),
        ];
        let mut from = PotSet::new();
        for (node, &p) in pots.iter().enumerate() {
            from.insert(p, node as NodeId);
        }
        let mut copy = PotSet::new();
        copy.insert(Pot::new(3, 3, true), 7);
        copy.insert(pots[1], 9);
        copy.copy_members(&from);
        let mut listed = Vec::new();
        copy.members(&mut listed);
        assert_eq!(listed, pots);
        assert!(!copy.contains(Pot::new(3, 3, true)));
        copy.insert(Pot::new(3, 3, true), 7);
        assert!(!from.contains(Pot::new(3, 3, true)));

        let mut other = PotSet::new();
        for p in [pots[2], Pot::new(5, 5, false), pots[0]] {
            other.insert(p, 1);
        }
        copy.retain_in(&other);
        assert!(!copy.contains(pots[1]) && !copy.is_empty());
        copy.members(&mut listed);
        assert_eq!(listed, [pots[0], pots[2]]);
        assert!(from.contains(pots[1]));
        copy.retain_in(&PotSet::new());
        assert!(copy.is_empty());
        copy.members(&mut listed);
        assert!(listed.is_empty());

        let mut kept = KeptSet::default();
        from.keep_into(&mut kept);
        let mut filled = PotSet::new();
        filled.fill(&kept);
        let entries: Vec<_> = from.entries().collect();
        assert_eq!(filled.entries().collect::<Vec<_>>(), entries);
        assert_eq!(filled.get(pots[2]), Some(2));
        filled.clear();
        assert!(pots
            .iter()
            .all(|&p| !filled.contains(p) && from.contains(p)));
    }

    #[test]
    fn complexity_limit_is_the_longest_hint_that_comes_first() {
        let mut chains = Chains::new();
        assert_eq!(chains.complexity_limit(6.5, Kind::X), u32::MAX);
        let key = |base: f64, c: u32, kind: Kind| sort_key(base + length_bonus(c), c, kind);
        for (best_base, best_c, best_kind) in [
            (7.0, 9, Kind::Xy),
            (6.6, 2, Kind::X),
            (7.0, 40, Kind::Xy),
            (6.5, 13, Kind::Y),
            (8.0, 300, Kind::Region),
        ] {
            chains.best = Some(Found {
                rating: best_base + length_bonus(best_c),
                complexity: best_c,
                kind: best_kind,
                technique: Technique::Cycle,
                removed: Vec::new(),
                placed: None,
                branches: Vec::new(),
                order: 0,
            });
            let best_key = key(best_base, best_c, best_kind);
            for (base, kind) in [(6.5, Kind::X), (6.6, Kind::Y), (7.0, Kind::Xy)] {
                let limit = chains.complexity_limit(base, kind);
                let first = |c: u32| key(base, c, kind) < best_key;
                assert!((1..=limit).all(first), "{best_c} {base} {limit}");
                assert!(!first(limit + 1), "{best_c} {base} {limit}");
            }
        }
    }

    #[test]
    fn remembered_chains_give_what_fresh_searches_give() {
        use crate::solver::{FastSolver, Solver};
        use crate::tasks::grade::{next_step, PathMemory, Rating};
        let sample = include_str!("../../../datasets/sample.txt");
        let mut solver = FastSolver::new();
        let mut compared = 0;
        for line in sample.lines() {
            let givens = Grid::parse_line(line.as_bytes()).unwrap();
            let solution = solver.solve(&givens, 1).solution.unwrap();
            let mut board = Board::new(&givens);
            let mut memory = PathMemory::new(Some(&solution));
            // To the first board that needs a chain.
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                if step.rating >= 65 {
                    break;
                }
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
            if board.is_solved() {
                continue;
            }
            let mut kept = Chains::new();
            let mut fresh = Chains::new();
            fresh.remembered.off = true;
            assert_eq!(kept.multiple(&board), fresh.multiple(&board), "{line}");
            assert_eq!(kept.dynamic(&board), fresh.dynamic(&board), "{line}");
            compared += 1;
            if compared == 60 {
                break;
            }
        }
        assert_eq!(compared, 60);
    }

    /// The Nishio cells kept per digit are those worked out afresh,
    /// along the paths of sample puzzles (boards losing candidates step
    /// by step, most digits' cells unchanged from one to the next).
    #[test]
    fn nishio_cells_kept_are_those_worked_out_afresh() {
        use crate::tasks::grade::{next_step, PathMemory, Rating};
        let mut compared = 0;
        for (line, mut board, solution) in crate::tasks::grade::test_boards::sample(200) {
            let mut kept = Chains::knowing(Some(&solution));
            let mut memory = PathMemory::new(Some(&solution));
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                let mut fresh = Chains::knowing(Some(&solution));
                for d in 1..=9 {
                    let proving = kept.nishio_proves(&board, d);
                    assert_eq!(proving, fresh.nishio_proves(&board, d), "{line} d{d}");
                    compared += (proving != 0) as u32;
                }
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
        }
        assert!(compared > 100, "{compared}");
    }

    /// What the proof's forcing chains conclude, with the memory of the
    /// searches on the path's boards before (digits whose X links proved
    /// nothing, or whose X pass found nothing), is what a fresh search
    /// concludes: at each chaining step of sample paths, after that
    /// step's own search, for bounds from 6.6 to 7.5.
    #[test]
    fn kept_forcing_conclusions_are_those_found_afresh() {
        use crate::tasks::grade::{next_step, PathMemory, Rating};
        let (mut compared, mut concluded) = (0, 0);
        for (line, mut board, solution) in crate::tasks::grade::test_boards::sample(300) {
            let mut kept = Chains::knowing(Some(&solution));
            let mut memory = PathMemory::new(Some(&solution));
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                if step.rating >= 65 {
                    kept.cycles_and_forcing_chains(&board);
                    for most in [66, 67, 69, 72, 75] {
                        let found = kept.forcing_conclusions(&board, most);
                        let fresh =
                            Chains::knowing(Some(&solution)).forcing_conclusions(&board, most);
                        assert_eq!(found, fresh, "{line} most {most}");
                        compared += 1;
                        concluded += found.is_some_and(|f| !f.is_empty()) as u32;
                    }
                }
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
        }
        assert!(compared > 500 && concluded > 200, "{compared} {concluded}");
    }

    /// A tree forgets what older searches reached, also when its search
    /// numbers wrap, and grows a result's line into the arena root first.
    #[test]
    fn tree_keeps_one_search_and_grows_lines() {
        let (a, b, c, d) = (
            Pot::new(0, 1, true),
            Pot::new(1, 1, false),
            Pot::new(2, 1, true),
            Pot::new(3, 1, false),
        );
        let mut tree = Tree::new();
        for search in [5, u32::MAX - 1, u32::MAX] {
            tree.search = search;
            tree.start(a);
            tree.insert(b, a);
            tree.insert(c, b);
            assert!(tree.contains(a) && tree.contains(c));
            assert!(tree.descends_from(c, a) && !tree.descends_from(b, c));
            let mut arena = Arena::default();
            let end = tree.grow(&mut arena, c, &[d]);
            let mut line = vec![arena.pot(end)];
            let mut at = end;
            while let Some(up) = arena.first_parent(at) {
                line.push(arena.pot(up));
                at = up;
            }
            assert_eq!(line, [d, c, b, a]);
            assert_eq!(arena.ancestors(end, &mut Vec::new()), 4);
            // The next search (after a wrap too) starts empty.
            tree.start(d);
            assert!(!tree.contains(a) && !tree.contains(b) && !tree.contains(c));
            assert!(tree.contains(d) && tree.parent(d).is_none());
            // Nor does a pot no search has reached pass for reached.
            assert!(!tree.contains(Pot::new(80, 9, true)));
        }
    }
}
