//! The k-subsets of 0..9 in the order Sudoku Explainer tries them (as
//! numbers, increasing: {0,1}, {0,2}, {1,2}, {0,3}, ...), since the first
//! pattern found is the step taken and the order decides which. Tabled
//! once: the techniques walk them at every step.

/// `TABLE[k][..COUNT[k]]`: the 9-bit masks with `k` bits set, increasing.
const TABLE: [[u16; 126]; 10] = table();
const COUNT: [usize; 10] = [1, 9, 36, 84, 126, 126, 84, 36, 9, 1];

const fn table() -> [[u16; 126]; 10] {
    let mut t = [[0u16; 126]; 10];
    let mut fill = [0usize; 10];
    let mut m = 0u16;
    while m < 512 {
        let k = m.count_ones() as usize;
        t[k][fill[k]] = m;
        fill[k] += 1;
        m += 1;
    }
    t
}

/// Every 9-bit mask with `k` bits set, in increasing order.
pub fn combos(k: u32) -> impl Iterator<Item = u16> {
    TABLE[k as usize][..COUNT[k as usize]].iter().copied()
}

/// The masks of [`combos`] with every member in `open`, in the same
/// order: the `k`-subsets of `open`'s members, made as those of its first
/// `m` places (`m` its size, the table's first entries) spread out onto
/// its members, which keeps the order (the i-th lowest bit goes to the
/// i-th lowest member).
pub fn combos_within(open: u16, k: u32) -> impl Iterator<Item = u16> {
    let mut spread = [0u16; 9];
    for (n, i) in members(open).enumerate() {
        spread[n] = 1 << i;
    }
    let below = 1u16 << open.count_ones();
    combos(k)
        .take_while(move |&set| set < below)
        .map(move |set| members(set).fold(0, |m, n| m | spread[n]))
}

/// The first answer of `found` over the sets of
/// [`combos_within`]`(open, k)` whose members' `masks` have `k` bits or
/// fewer in all, in that order, each with that union. The sets are made
/// a member at a time, the largest first (the order of the masks as
/// numbers, increasing, is that of their largest member, then the next,
/// ...), and a choice whose union already has more than `k` bits is
/// dropped with every set holding it: most are, long before the last
/// member (naked and hidden sets, fish).
pub fn first_within_union<R>(
    open: u16,
    k: u32,
    masks: &[u16; 9],
    mut found: impl FnMut(u16, u16) -> Option<R>,
) -> Option<R> {
    /// The sets of `left` more members below `below`, added to `set`.
    fn pick<R>(
        below: u16,
        left: u32,
        (k, masks): (u32, &[u16; 9]),
        (set, union): (u16, u16),
        found: &mut impl FnMut(u16, u16) -> Option<R>,
    ) -> Option<R> {
        if left == 0 {
            return found(set, union);
        }
        // The largest of the members left: `left - 1` lower ones beside.
        for m in members(below).skip(left as usize - 1) {
            let with = union | masks[m];
            if with.count_ones() <= k {
                let set = (set | 1 << m, with);
                if let Some(r) = pick(below & ((1 << m) - 1), left - 1, (k, masks), set, found) {
                    return Some(r);
                }
            }
        }
        None
    }
    // Pairs and triples (most searches) by loops, larger sets by `pick`.
    let fits = |union: u16| union.count_ones() <= k;
    match k {
        2 => {
            for b in members(open & open.wrapping_sub(1)) {
                let ub = masks[b];
                for a in members(open & ((1 << b) - 1)) {
                    let union = ub | masks[a];
                    if fits(union) {
                        if let Some(r) = found(1 << a | 1 << b, union) {
                            return Some(r);
                        }
                    }
                }
            }
            None
        }
        3 => {
            let from_second = open & open.wrapping_sub(1);
            let from_third = from_second & from_second.wrapping_sub(1);
            for c in members(from_third) {
                let uc = masks[c];
                if !fits(uc) {
                    continue;
                }
                let below_c = open & ((1 << c) - 1);
                for b in members(below_c & below_c.wrapping_sub(1)) {
                    let ub = uc | masks[b];
                    if !fits(ub) {
                        continue;
                    }
                    for a in members(below_c & ((1 << b) - 1)) {
                        let union = ub | masks[a];
                        if fits(union) {
                            if let Some(r) = found(1 << a | 1 << b | 1 << c, union) {
                                return Some(r);
                            }
                        }
                    }
                }
            }
            None
        }
        _ => pick(open, k, (k, masks), (0, 0), &mut found),
    }
}

/// Which of a unit's nine masks (a cell's candidates, a digit's places)
/// may be in a set of `k`: those with two to `k` bits (fewer is solved,
/// more cannot fit in `k`). A set with any other member is skipped.
pub fn within_set(masks: &[u16; 9], k: u32) -> u16 {
    (0..9).fold(0u16, |m, i| {
        let n = masks[i].count_ones();
        m | u16::from((2..=k).contains(&n)) << i
    })
}

/// The members of a mask, in increasing order.
pub fn members(mask: u16) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            i
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_come_in_increasing_order_of_their_larger_member() {
        let pairs: Vec<Vec<usize>> = combos(2).take(4).map(|m| members(m).collect()).collect();
        assert_eq!(pairs, vec![vec![0, 1], vec![0, 2], vec![1, 2], vec![0, 3]]);
        for k in 0..10 {
            let all: Vec<u16> = (0u16..512).filter(|m| m.count_ones() == k).collect();
            assert_eq!(combos(k).collect::<Vec<_>>(), all);
        }
    }

    /// The sets `first_within_union` offers are those of
    /// `combos_within` whose union is small enough, in the same order.
    #[test]
    fn sets_within_a_union_are_those_within_in_order() {
        let masks: [u16; 9] =
            std::array::from_fn(|i| (0x0d3u16.rotate_left(3 * i as u32) & 0x1ff) | 1 << (8 - i));
        for open in 0u16..512 {
            for k in 1..=5 {
                let expected: Vec<(u16, u16)> = combos_within(open, k)
                    .map(|set| (set, members(set).fold(0, |m, i| m | masks[i])))
                    .filter(|&(_, union)| union.count_ones() <= k)
                    .collect();
                let mut offered = Vec::new();
                let none: Option<()> = first_within_union(open, k, &masks, |set, union| {
                    offered.push((set, union));
                    None
                });
                assert_eq!(none, None);
                assert_eq!(offered, expected, "{open:b} {k}");
            }
        }
    }

    /// For every 9-bit mask and size, the sets within it are those of
    /// `combos` with no member outside it, in the same order.
    #[test]
    fn combos_within_a_mask_are_those_inside_it_in_order() {
        for open in 0u16..512 {
            for k in 0..10 {
                let inside: Vec<u16> = combos(k).filter(|&set| set & !open == 0).collect();
                assert_eq!(
                    combos_within(open, k).collect::<Vec<_>>(),
                    inside,
                    "{open:b} {k}"
                );
            }
        }
    }
}
