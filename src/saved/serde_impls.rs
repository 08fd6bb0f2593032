//! serde's traits for meshes and trees, through the saved form as one byte
//! string: compact in binary formats (bincode, postcard), and validated on
//! the way in like [`MeshTree::from_saved_bytes`].

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::mesh::TriMesh;
use crate::query::MeshTree;
use crate::saved::{LoadError, SavedVolume};

/// Accepts a byte string, borrowed or owned, and loads it with `load`.
struct SavedBytes<F>(F);

impl<'de, T, F: FnOnce(&[u8]) -> Result<T, LoadError>> Visitor<'de> for SavedBytes<F> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the bytes of a saved boxtree mesh or tree")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<T, E> {
        (self.0)(bytes).map_err(E::custom)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        // Formats without a byte-string type (JSON) send a sequence. The
        // size hint is untrusted: growth follows the bytes that arrive.
        let mut bytes = Vec::new();
        while let Some(b) = seq.next_element::<u8>()? {
            bytes.push(b);
        }
        (self.0)(&bytes).map_err(A::Error::custom)
    }
}

impl Serialize for TriMesh {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_saved_bytes())
    }
}

impl<'de> Deserialize<'de> for TriMesh {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(SavedBytes(TriMesh::from_saved_bytes))
    }
}

impl<V: SavedVolume> Serialize for MeshTree<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_saved_bytes())
    }
}

impl<'de, V: SavedVolume> Deserialize<'de> for MeshTree<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(SavedBytes(MeshTree::<V>::from_saved_bytes))
    }
}
