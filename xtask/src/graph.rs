//! Strongly connected components of a directed graph (Tarjan's algorithm, iterative), and one
//! cycle through a component, to name an import cycle file by file.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A directed graph over `N`.
pub struct Graph<N: Ord + Clone> {
    successors: BTreeMap<N, BTreeSet<N>>,
}

impl<N: Ord + Clone> Graph<N> {
    /// A graph with these edges (self-loops dropped).
    pub fn new(edges: impl IntoIterator<Item = (N, N)>) -> Self {
        let mut successors: BTreeMap<N, BTreeSet<N>> = BTreeMap::new();
        for (from, to) in edges {
            successors.entry(to.clone()).or_default();
            if from != to {
                successors.entry(from).or_default().insert(to);
            }
        }
        Graph { successors }
    }

    /// The components of more than one node, each sorted, in node order.
    pub fn cycles(&self) -> Vec<Vec<N>> {
        let mut components = self.components();
        components.sort();
        components
    }

    fn components(&self) -> Vec<Vec<N>> {
        let nodes: Vec<&N> = self.successors.keys().collect();
        let index_of: BTreeMap<&N, usize> =
            nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let succ: Vec<Vec<usize>> = nodes
            .iter()
            .map(|n| self.successors[*n].iter().map(|m| index_of[m]).collect())
            .collect();
        tarjan(&succ)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut c: Vec<N> = c.into_iter().map(|i| nodes[i].clone()).collect();
                c.sort();
                c
            })
            .collect()
    }

    /// A shortest cycle through `start` inside `component` (start first, not repeated at the end).
    pub fn cycle_through(&self, start: &N, component: &[N]) -> Vec<N> {
        let inside: BTreeSet<&N> = component.iter().collect();
        let mut parent: BTreeMap<&N, &N> = BTreeMap::new();
        let mut queue: VecDeque<&N> = VecDeque::from([start]);
        while let Some(node) = queue.pop_front() {
            for next in &self.successors[node] {
                if next == start {
                    let mut path = vec![node.clone()];
                    let mut at = node;
                    while let Some(p) = parent.get(at) {
                        path.push((*p).clone());
                        at = p;
                    }
                    path.reverse();
                    return path;
                }
                if inside.contains(next) && !parent.contains_key(next) && next != start {
                    parent.insert(next, node);
                    queue.push_back(next);
                }
            }
        }
        vec![start.clone()]
    }
}

/// Tarjan's strongly connected components over successor lists, without recursion.
fn tarjan(succ: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let n = succ.len();
    let (mut index, mut low, mut on_stack) = (vec![UNSEEN; n], vec![0; n], vec![false; n]);
    let (mut stack, mut components, mut next_index) = (Vec::new(), Vec::new(), 0);
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        // (node, position in its successor list)
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == UNSEEN {
                index[v] = next_index;
                low[v] = next_index;
                next_index += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*pos) {
                *pos += 1;
                if index[w] == UNSEEN {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

#[cfg(test)]
mod tests {
    use super::Graph;

    #[test]
    fn finds_cycles_and_only_cycles() {
        let g = Graph::new([
            (1, 2),
            (2, 3),
            (3, 1),
            (3, 4),
            (4, 5),
            (5, 4),
            (6, 6),
            (7, 1),
        ]);
        assert_eq!(g.cycles(), vec![vec![1, 2, 3], vec![4, 5]]);
        assert_eq!(g.cycle_through(&1, &[1, 2, 3]), vec![1, 2, 3]);
        assert!(Graph::new([(1, 2), (2, 3), (1, 3)]).cycles().is_empty());
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let chain: Vec<(u32, u32)> = (0..200_000)
            .map(|i| (i, i + 1))
            .chain([(200_000, 0)])
            .collect();
        let cycles = Graph::new(chain).cycles();
        assert_eq!(cycles.len(), 1);
        assert_eq!(cycles[0].len(), 200_001);
    }
}
