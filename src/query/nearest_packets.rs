//! The leaf triangles of each wide node, eight to a packet, for the
//! nearest-point descent: one pass of 8-lane instructions bounds the
//! distance of every triangle of a node's leaves within reach
//! ([`Isa::triangle_lower_bounds8`]), and only triangles whose bound is
//! within the best distance so far take the exact closest point, nearest
//! bound first. Far from a mesh, most triangles a descent reaches lie just
//! beyond the answer (a shell as thick as a triangle), and the exact
//! routine on each of them was most of a query.

use crate::bvh::{WideChild, WideLayout};
use crate::intersect::TriangleLanes;
use crate::math::Real;
use crate::simd::{Isa, TriangleRows8};

/// Fewer triangles of a packet than this are tested one by one: the
/// packet's bound costs about what two triangles' box and plane tests do.
const PACKET_LEAST: u32 = 2;

/// Eight triangles: vertices by vertex, axis and lane, the child lane of
/// the node whose leaf holds each, and each one's leaf-order position.
/// Unused lanes have `+∞` vertices and child lane 8 (never asked for).
#[derive(Clone, Debug)]
#[repr(C, align(32))]
pub(crate) struct TrianglePacket {
    rows: TriangleRows8,
    child_lane: [u32; 8],
    position: [u32; 8],
}

impl TrianglePacket {
    const EMPTY: TrianglePacket = TrianglePacket {
        rows: [[[Real::INFINITY; 8]; 3]; 3],
        child_lane: [8; 8],
        position: [0; 8],
    };

    /// Lanes whose triangle sits in one of the node's child lanes `lanes`.
    #[inline(always)]
    fn lanes_in(&self, lanes: u32) -> u32 {
        let mut mask = 0;
        for (i, &child) in self.child_lane.iter().enumerate() {
            mask |= (lanes >> (child & 31) & u32::from(child < 8)) << i;
        }
        mask
    }
}

/// Every wide node's leaf triangles as packets, node after node.
#[derive(Clone, Debug, Default)]
pub(crate) struct NearestPackets {
    packets: Vec<TrianglePacket>,
    /// Node `i`'s packets are `first[i] .. first[i + 1]`.
    first: Vec<u32>,
}

impl NearestPackets {
    /// The packets of `wide`'s nodes over the leaf-order triangles `leaf`.
    pub(crate) fn new(wide: &WideLayout, leaf: &[TriangleLanes]) -> Self {
        let nodes = wide.nodes();
        let mut packets = Vec::new();
        let mut first = Vec::with_capacity(nodes.len() + 1);
        for node in nodes {
            first.push(packets.len() as u32);
            let mut packet = TrianglePacket::EMPTY;
            let mut used = 0;
            for lane in 0..8 {
                let WideChild::Leaf { first, count } = node.child(lane) else {
                    continue;
                };
                for k in first..first + count {
                    let tri = leaf[k as usize].triangle();
                    for (vertex, point) in [tri.a, tri.b, tri.c].iter().enumerate() {
                        for axis in 0..3 {
                            packet.rows[vertex][axis][used] = point[axis];
                        }
                    }
                    packet.child_lane[used] = lane as u32;
                    packet.position[used] = k;
                    used += 1;
                    if used == 8 {
                        packets.push(std::mem::replace(&mut packet, TrianglePacket::EMPTY));
                        used = 0;
                    }
                }
            }
            if used > 0 {
                packets.push(packet);
            }
        }
        first.push(packets.len() as u32);
        NearestPackets { packets, first }
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of_val(self.packets.as_slice())
            + std::mem::size_of_val(self.first.as_slice())
    }

    /// The packets of node `node`.
    #[inline(always)]
    fn of(&self, node: u32) -> &[TrianglePacket] {
        let (from, to) = (self.first[node as usize], self.first[node as usize + 1]);
        &self.packets[from as usize..to as usize]
    }

    /// Offers the triangles of node `node`'s child lanes `lanes`: where a
    /// packet holds at least [`PACKET_LEAST`] of them, `exact(state,
    /// position)` for those whose lower bound is within `reach(state)`
    /// (read again after every call, which may shrink it), least bound
    /// first; otherwise `screened(state, position)` for each, which runs
    /// its own cheaper tests first.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn offer<I: Isa, S>(
        &self,
        isa: I,
        p: &[Real; 3],
        node: u32,
        lanes: u32,
        state: &mut S,
        reach: impl Fn(&S) -> Real,
        mut exact: impl FnMut(&mut S, u32),
        mut screened: impl FnMut(&mut S, u32),
    ) {
        for packet in self.of(node) {
            let mut active = packet.lanes_in(lanes);
            if active.count_ones() < PACKET_LEAST {
                while active != 0 {
                    let lane = active.trailing_zeros() as usize;
                    active &= active - 1;
                    screened(state, packet.position[lane]);
                }
                continue;
            }
            let bounds = isa.triangle_lower_bounds8(p, &packet.rows);
            loop {
                let reach = reach(state);
                let mut pick = 8;
                let mut least = Real::INFINITY;
                let mut within = 0;
                let mut pending = active;
                while pending != 0 {
                    let lane = pending.trailing_zeros() as usize;
                    pending &= pending - 1;
                    if bounds[lane] <= reach {
                        within |= 1 << lane;
                        if bounds[lane] < least || pick == 8 {
                            least = bounds[lane];
                            pick = lane;
                        }
                    }
                }
                if within == 0 {
                    break;
                }
                active = within & !(1 << pick);
                exact(state, packet.position[pick]);
            }
        }
    }
}
