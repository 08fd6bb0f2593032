//! Static intersection tests, one pair of shapes per file.
