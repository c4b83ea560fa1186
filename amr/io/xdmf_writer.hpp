// The XDMF (version 2) description of a Chombo dump, so that ParaView opens it: one
// uniform grid per patch, grouped per level, cell-centred attributes read from the HDF5
// file through hyperslabs, and vtkGhostType hiding coarse cells under finer ones.
#pragma once

#include <string>
#include <vector>

#include "amr/hierarchy.hpp"

namespace pw {

/// The XDMF text for the dump of `h` written by write_chombo to `h5_name` (a path
/// relative to the .xmf file). Pure: every rank computes the same text from metadata.
/// 2D runs are written as one cell thick in z.
std::string xdmf_text(const Hierarchy& h, const std::vector<std::string>& component_names,
                      const std::string& h5_name);

}  // namespace pw
