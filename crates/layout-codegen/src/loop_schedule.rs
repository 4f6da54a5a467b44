//! Which shared-memory buffer each conversion of the benchmark loop
//! `R × { cvt_fwd ; cvt_bwd }` uses, and where the loop's barriers go, as
//! data; and a checker of such a loop.
//!
//! A conversion through shared memory is `store ; barrier ; load`: the
//! barrier orders every warp's stores before any warp's loads (read after
//! write). The next store into the *same* buffer must also wait until every
//! warp has finished its loads (write after read). With one buffer that is a
//! second barrier after every conversion: four per iteration of
//! `R × { cvt_fwd ; cvt_bwd }`, which is also what Triton's barrier
//! placement gives for two conversions sharing the scratch offset 0. With
//! two buffers used in turn by consecutive shared-memory conversions, the
//! next conversion's own barrier already sits between a warp's loads from
//! buffer `b` and any later store into `b` (that store belongs to the
//! conversion after next): one barrier per conversion, at the price of
//! twice the scratch. When only one direction goes through shared memory,
//! turn-taking spans two iterations, so the loop body is unrolled by two.
//!
//! [`Schedule`] is such a loop body as data; [`first_race`] checks a
//! sequence of shared-memory accesses and barriers, repeated as a loop, for
//! a store and a load of one buffer that no barrier separates. Which
//! schedule a kernel gets (one buffer or two) is [`crate::loop_plan`]'s
//! choice; the CUDA emitter's tests also run [`first_race`] on the emitted
//! programs' text.
//!
//! ```
//! use layout_codegen::loop_schedule::{first_race, Schedule};
//! let one = Schedule::new(true, true, false);
//! let two = Schedule::new(true, true, true);
//! assert_eq!((one.barriers(), two.barriers()), (4, 2));
//! assert_eq!(first_race(&two.accesses()), None);
//! ```

use serde::Serialize;

/// Which conversion of the benchmark loop a step runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Direction {
    /// `cvt_fwd`: source → destination layout.
    Forward,
    /// `cvt_bwd`: destination → source layout.
    Backward,
}

/// One conversion of the loop body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Which conversion.
    pub direction: Direction,
    /// The shared buffer it stores into and loads from (`None`: it does not
    /// touch shared memory).
    pub buffer: Option<u32>,
    /// A barrier after its loads (write after read on the same buffer).
    pub barrier_after: bool,
}

/// The loop body: `Forward, Backward` once, or twice when unrolled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// The body's conversions in program order.
    pub steps: Vec<Step>,
}

/// One event of a warp's program, as far as shared memory is concerned.
/// Every warp runs the same sequence; any store may be read by, and any
/// load may read what was written by, another warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Access {
    /// Stores into buffer `b`.
    Store(u32),
    /// Loads from buffer `b`.
    Load(u32),
    /// A CTA-wide barrier.
    Barrier,
}

impl Schedule {
    /// The schedule for a loop whose forward and backward conversions do or
    /// do not go through shared memory, with one buffer or two taken in
    /// turn (unrolled by two when only one direction uses shared memory).
    pub fn new(forward_shared: bool, backward_shared: bool, two_buffers: bool) -> Schedule {
        let pair = [
            (Direction::Forward, forward_shared),
            (Direction::Backward, backward_shared),
        ];
        let unroll = if two_buffers && forward_shared != backward_shared {
            2
        } else {
            1
        };
        let mut next = 0;
        let mut steps = Vec::new();
        for _ in 0..unroll {
            for (direction, shared) in pair {
                let buffer = shared.then(|| {
                    let b = next;
                    if two_buffers {
                        next ^= 1;
                    }
                    b
                });
                steps.push(Step {
                    direction,
                    buffer,
                    barrier_after: shared && !two_buffers,
                });
            }
        }
        Schedule { steps }
    }

    /// Iterations of `R` one pass over the body covers (1 or 2).
    pub fn unroll(&self) -> usize {
        self.steps.len() / 2
    }

    /// Whether the forward and the backward conversion use a shared
    /// buffer.
    pub fn uses_scratch(&self) -> (bool, bool) {
        let uses = |d: Direction| {
            self.steps
                .iter()
                .any(|s| s.direction == d && s.buffer.is_some())
        };
        (uses(Direction::Forward), uses(Direction::Backward))
    }

    /// Shared buffers the body uses.
    pub fn buffers(&self) -> u32 {
        self.steps
            .iter()
            .filter_map(|s| s.buffer)
            .max()
            .map_or(0, |b| b + 1)
    }

    /// Barriers per iteration of `R` (inside the conversions and after them).
    pub fn barriers(&self) -> usize {
        let per_body = self
            .steps
            .iter()
            .map(|s| usize::from(s.buffer.is_some()) + usize::from(s.barrier_after))
            .sum::<usize>();
        per_body / self.unroll()
    }

    /// The body as accesses: `Store(b), Barrier, Load(b)` per shared-memory
    /// conversion, then `Barrier` where `barrier_after`.
    pub fn accesses(&self) -> Vec<Access> {
        let mut out = Vec::new();
        for s in &self.steps {
            if let Some(b) = s.buffer {
                out.extend([Access::Store(b), Access::Barrier, Access::Load(b)]);
            }
            if s.barrier_after {
                out.push(Access::Barrier);
            }
        }
        out
    }
}

/// The first pair `(i, j)` of accesses to the same buffer, one a store and
/// the other a load, with no barrier between them when `body` runs as a loop (`j` may
/// wrap around into the next iteration: then it is `body.len()` larger).
/// `None`: every conflicting pair is ordered by a barrier. A loop's last
/// iteration is followed by no shared-memory access, and a remainder
/// iteration after an unrolled body repeats the body's start, so checking
/// the cycle covers both.
pub fn first_race(body: &[Access]) -> Option<(usize, usize)> {
    let n = body.len();
    let at = |k: usize| body[k % n];
    let buffer = |a: Access| match a {
        Access::Store(b) | Access::Load(b) => Some((b, matches!(a, Access::Store(_)))),
        Access::Barrier => None,
    };
    for i in 0..n {
        let Some((bi, si)) = buffer(at(i)) else {
            continue;
        };
        for j in i + 1..i + n {
            if at(j) == Access::Barrier {
                break;
            }
            if let Some((bj, sj)) = buffer(at(j)) {
                if bi == bj && si != sj {
                    return Some((i, j));
                }
            }
        }
    }
    None
}

/// The first barrier of `body` that orders nothing: removing it leaves
/// the loop race-free by [`first_race`]. `None`: every barrier is needed
/// (and, when `body` is race-free, its barriers are a minimal set).
///
/// ```
/// use layout_codegen::loop_schedule::{first_needless_barrier, Access::*};
/// // Read after write, then write after read across the back edge.
/// assert_eq!(first_needless_barrier(&[Store(0), Barrier, Load(0), Barrier]), None);
/// // Two buffers in turn need no trailing barriers.
/// let two = [Store(0), Barrier, Load(0), Barrier, Store(1), Barrier, Load(1)];
/// assert_eq!(first_needless_barrier(&two), Some(3));
/// ```
pub fn first_needless_barrier(body: &[Access]) -> Option<usize> {
    (0..body.len()).find(|&k| {
        body[k] == Access::Barrier && {
            let mut m = body.to_vec();
            m.remove(k);
            first_race(&m).is_none()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Schedule> {
        let mut v = Vec::new();
        for f in [false, true] {
            for b in [false, true] {
                for two in [false, true] {
                    v.push(Schedule::new(f, b, two));
                }
            }
        }
        v
    }

    #[test]
    fn every_schedule_is_race_free_and_needs_each_barrier() {
        for s in all() {
            let acc = s.accesses();
            assert_eq!(first_race(&acc), None, "{s:?}");
            // Minimal: dropping any one barrier opens a race.
            assert_eq!(first_needless_barrier(&acc), None, "{s:?}");
        }
    }

    #[test]
    fn two_buffers_halve_the_barriers() {
        let counts = |f, b| {
            (
                Schedule::new(f, b, false).barriers(),
                Schedule::new(f, b, true).barriers(),
            )
        };
        assert_eq!(counts(true, true), (4, 2));
        assert_eq!(counts(true, false), (2, 1));
        assert_eq!(counts(false, true), (2, 1));
        assert_eq!(counts(false, false), (0, 0));
        assert_eq!(Schedule::new(true, false, true).unroll(), 2);
        assert_eq!(Schedule::new(true, true, true).unroll(), 1);
        assert_eq!(Schedule::new(true, false, true).buffers(), 2);
        assert_eq!(Schedule::new(true, true, false).buffers(), 1);
    }

    /// Hand-written sequences: the write-after-read across the back edge
    /// of a one-buffer loop without its trailing barrier, and a read after
    /// write with no barrier at all.
    #[test]
    fn races_written_by_hand() {
        use Access::*;
        assert_eq!(first_race(&[Store(0), Barrier, Load(0)]), Some((2, 3)));
        assert_eq!(first_race(&[Store(0), Load(0), Barrier]), Some((0, 1)));
        assert_eq!(first_race(&[Store(0), Barrier, Load(0), Barrier]), None);
        // Two buffers in one body, no trailing barriers: race-free.
        assert_eq!(
            first_race(&[Store(0), Barrier, Load(0), Store(1), Barrier, Load(1)]),
            None
        );
        // The same buffer twice: the second store races with the first load.
        assert_eq!(
            first_race(&[Store(0), Barrier, Load(0), Store(0), Barrier, Load(0)]),
            Some((2, 3))
        );
        // Loads alone, or the stores of one conversion, never race.
        assert_eq!(first_race(&[Load(0), Load(0)]), None);
        assert_eq!(
            first_race(&[Store(0), Store(0), Barrier, Load(0), Barrier]),
            None
        );
    }
}
