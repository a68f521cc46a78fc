//! Which of an unordered list's elements hold a run of ranks, picked the way a server picks
//! them: with a binary heap (a min-heap from the low end, a max-heap from the high end).
//! Equal values have no rank order of their own: the heap's sifting decides which of them
//! falls inside the run, so ties are neither in index order nor in reverse index order.

use std::cmp::Ordering;

use crate::value::Value;

/// Index positions of ranks `start..start + count` of `vals`, in the order a server hands the
/// values out: from the low end highest rank first, from the high end lowest rank first.
pub fn rank_run(vals: &[&Value], start: usize, count: usize) -> Vec<usize> {
    let n = vals.len();
    let tail = n - start - count;
    let (wanted, discard) = if start <= tail {
        (Ordering::Less, start)
    } else {
        (Ordering::Greater, tail)
    };
    let mut heap = Heap {
        vals,
        slots: (0..n).collect(),
        filled: n,
        wanted,
    };
    for i in (0..n / 2).rev() {
        heap.sift_down(i);
    }
    // Each top popped goes to the slot the heap gives up, so the last popped comes first.
    for _ in 0..count + discard {
        let top = heap.slots[0];
        heap.filled -= 1;
        heap.slots[0] = heap.slots[heap.filled];
        heap.sift_down(0);
        heap.slots[heap.filled] = top;
    }
    heap.slots[heap.filled..heap.filled + count].to_vec()
}

struct Heap<'a, 'v> {
    vals: &'a [&'v Value],
    slots: Vec<usize>,
    filled: usize,
    /// `Less` for a min-heap, `Greater` for a max-heap.
    wanted: Ordering,
}

impl Heap<'_, '_> {
    fn cmp(&self, a: usize, b: usize) -> Ordering {
        self.vals[self.slots[a]].cmp(self.vals[self.slots[b]])
    }

    /// Moves slot `i` down while a child beats it; between equal children the left one wins.
    fn sift_down(&mut self, mut i: usize) {
        loop {
            let left = 2 * i + 1;
            let right = left + 1;
            if left >= self.filled {
                return;
            }
            let child = if right >= self.filled || self.cmp(left, right) != self.wanted.reverse() {
                left
            } else {
                right
            };
            if self.cmp(child, i) != self.wanted {
                return;
            }
            self.slots.swap(i, child);
            i = child;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(items: &[Value], start: usize, count: usize) -> Vec<usize> {
        let vals: Vec<&Value> = items.iter().collect();
        rank_run(&vals, start, count)
    }

    #[test]
    fn equal_values_are_picked_by_the_heap() {
        let zeros = [Value::Int(0), Value::Int(0)];
        // rank 1 of [0, 0] is index 0 as much as rank 0 is
        assert_eq!(run(&zeros, 0, 1), vec![0]);
        assert_eq!(run(&zeros, 1, 1), vec![0]);
        let two = [Value::Float(2.0), Value::Nil, Value::Float(2.0)];
        assert_eq!(run(&two, 1, 1), vec![2]);
        assert_eq!(run(&two, 2, 1), vec![0]);
    }

    #[test]
    fn runs_come_highest_rank_first_from_the_low_end() {
        let items = [3, 1, 2, 0].map(Value::Int);
        assert_eq!(run(&items, 0, 2), vec![1, 3]);
        assert_eq!(run(&items, 2, 2), vec![2, 0]);
        assert_eq!(run(&items, 0, 0), Vec::<usize>::new());
    }
}
