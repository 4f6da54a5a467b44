//! A minimum s–t cut of a small directed graph (Edmonds–Karp max flow:
//! shortest augmenting paths, `O(V·E²)`; the hoisting graphs of
//! [`super::placement`] have at most a few hundred nodes).
//!
//! Capacities are `f64` (weighted cycles); [`INF`] marks an edge that may
//! never be cut. The cut is read from the residual graph: the source side
//! is every node still reachable from the source.

use std::collections::VecDeque;

/// An edge that is never cut.
pub(super) const INF: f64 = f64::INFINITY;

/// Residual capacity below which an edge counts as saturated.
const EPS: f64 = 1e-9;

/// A flow network: node `0..n`, edges with capacities.
pub(super) struct Network {
    /// Adjacency: edge indices out of each node.
    adj: Vec<Vec<usize>>,
    /// Per edge: head, residual capacity; edge `e ^ 1` is its reverse.
    to: Vec<usize>,
    cap: Vec<f64>,
}

impl Network {
    /// A network of `n` nodes and no edges.
    pub(super) fn new(n: usize) -> Network {
        Network {
            adj: vec![Vec::new(); n],
            to: Vec::new(),
            cap: Vec::new(),
        }
    }

    /// Adds the edge `a → b` of capacity `c` (a zero capacity adds nothing).
    pub(super) fn edge(&mut self, a: usize, b: usize, c: f64) {
        if c <= 0.0 {
            return;
        }
        self.adj[a].push(self.to.len());
        self.to.push(b);
        self.cap.push(c);
        self.adj[b].push(self.to.len());
        self.to.push(a);
        self.cap.push(0.0);
    }

    /// Saturates every `s → t` path; returns the source side of a minimum
    /// cut (`true` for nodes reachable from `s` in the residual graph), or
    /// `None` when the flow is unbounded (an uncuttable `s → t` path).
    pub(super) fn min_cut(&mut self, s: usize, t: usize) -> Option<Vec<bool>> {
        loop {
            // Shortest augmenting path by BFS.
            let mut via = vec![usize::MAX; self.adj.len()];
            let mut seen = vec![false; self.adj.len()];
            seen[s] = true;
            let mut q = VecDeque::from([s]);
            while let Some(a) = q.pop_front() {
                for &e in &self.adj[a] {
                    let b = self.to[e];
                    if !seen[b] && self.cap[e] > EPS {
                        seen[b] = true;
                        via[b] = e;
                        q.push_back(b);
                    }
                }
            }
            if !seen[t] {
                return Some(seen);
            }
            let mut push = INF;
            let mut b = t;
            while b != s {
                let e = via[b];
                push = push.min(self.cap[e]);
                b = self.to[e ^ 1];
            }
            if push.is_infinite() {
                return None;
            }
            let mut b = t;
            while b != s {
                let e = via[b];
                self.cap[e] -= push;
                self.cap[e ^ 1] += push;
                b = self.to[e ^ 1];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// s → a (3), s → b (2), a → b (1), a → t (2), b → t (3): the max flow
    /// is 5 and the minimum cut is {s} (3 + 2), found by hand.
    #[test]
    fn small_network() {
        let mut n = Network::new(4);
        let (s, a, b, t) = (0, 1, 2, 3);
        n.edge(s, a, 3.0);
        n.edge(s, b, 2.0);
        n.edge(a, b, 1.0);
        n.edge(a, t, 2.0);
        n.edge(b, t, 3.0);
        let side = n.min_cut(s, t).unwrap();
        assert_eq!(side, vec![true, false, false, false]);
    }

    /// A cheap edge deep in the graph is cut rather than the dear one at
    /// the source; an uncuttable path is reported.
    #[test]
    fn cut_moves_to_the_cheap_edge_and_infinity_is_refused() {
        let mut n = Network::new(4);
        n.edge(0, 1, 10.0);
        n.edge(1, 2, INF);
        n.edge(2, 3, 1.0);
        assert_eq!(n.min_cut(0, 3).unwrap(), vec![true, true, true, false]);
        let mut m = Network::new(2);
        m.edge(0, 1, INF);
        assert!(m.min_cut(0, 1).is_none());
    }
}
