//! Soil surface export: a 16-bit grayscale PNG height image and a PLY mesh (opens in
//! ParaView and MeshLab) of the touched part of the field.
