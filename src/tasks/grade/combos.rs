//! The k-subsets of 0..9 in the order Sudoku Explainer tries them (as
//! numbers, increasing: {0,1}, {0,2}, {1,2}, {0,3}, ...), since the first
//! pattern found is the step taken and the order decides which.

/// Every 9-bit mask with `k` bits set, in increasing order.
pub fn combos(k: u32) -> impl Iterator<Item = u16> {
    (0u16..1 << 9).filter(move |m| m.count_ones() == k)
}

/// The members of a mask, in increasing order.
pub fn members(mask: u16) -> impl Iterator<Item = usize> {
    (0..9).filter(move |&i| mask & (1 << i) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_come_in_increasing_order_of_their_larger_member() {
        let pairs: Vec<Vec<usize>> = combos(2).take(4).map(|m| members(m).collect()).collect();
        assert_eq!(pairs, vec![vec![0, 1], vec![0, 2], vec![1, 2], vec![0, 3]]);
        assert_eq!(combos(3).count(), 84);
    }
}
