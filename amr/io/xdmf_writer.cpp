#include "amr/io/xdmf_writer.hpp"

#include <fmt/format.h>

#include "amr/io/chombo_writer.hpp"

namespace pw {

namespace {

/// A cell attribute of one patch: `count` values from `start` of the 1-D dataset `path`.
std::string slab_attribute(const std::string& name, const std::string& dims, long start,
                           long count, long total, const std::string& number_type,
                           int precision, const std::string& path) {
  return fmt::format(
      "     <Attribute Name=\"{}\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
      "      <DataItem ItemType=\"HyperSlab\" Dimensions=\"{}\" Type=\"HyperSlab\">\n"
      "       <DataItem Dimensions=\"3 1\" Format=\"XML\">{} 1 {}</DataItem>\n"
      "       <DataItem Dimensions=\"{}\" NumberType=\"{}\" Precision=\"{}\" "
      "Format=\"HDF\">{}</DataItem>\n"
      "      </DataItem>\n"
      "     </Attribute>\n",
      name, dims, start, count, total, number_type, precision, path);
}

}  // namespace

std::string xdmf_text(const Hierarchy& h, const std::vector<std::string>& component_names,
                      const std::string& h5_name) {
  const int ncomp = h.ncomp();
  std::string s =
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"2.0\">\n <Domain>\n"
      "  <Grid Name=\"hierarchy\" GridType=\"Collection\" CollectionType=\"Spatial\">\n";
  s += fmt::format("   <Time Value=\"{:.17g}\"/>\n", h.time());
  for (int l = 0; l <= h.finest_level(); ++l) {
    const Level& L = h.level(l);
    const LevelGeom& g = L.geom;
    const BoxList& boxes = L.layout.boxes;
    const std::vector<long> cells = cell_offsets(boxes);
    const std::string level = fmt::format("/level_{}/", l);
    s += fmt::format(
        "   <Grid Name=\"level_{}\" GridType=\"Collection\" "
        "CollectionType=\"Spatial\">\n",
        l);
    for (size_t p = 0; p < boxes.size(); ++p) {
      const Box& b = boxes[p];
      const long nc = b.num_cells();
      // XDMF lists the slowest axis first: z, y, x. A 2D run's patch is a 3D mesh one
      // cell thick, from z = 0 to 1: ParaView's XDMF reader puts a 2D mesh's axes in
      // its y-z plane (x in y, y in z), and with unit thickness a volume integral is
      // the area integral.
      std::string dims = g.dim == 2 ? "1 " : "", nodes = g.dim == 2 ? "2 " : "",
                  origin = g.dim == 2 ? "0 " : "", spacing = g.dim == 2 ? "1 " : "";
      for (int d = g.dim - 1; d >= 0; --d) {
        const char* sep = d > 0 ? " " : "";
        dims += fmt::format("{}{}", b.size()[d], sep);
        nodes += fmt::format("{}{}", b.size()[d] + 1, sep);
        origin += fmt::format("{:.17g}{}", g.face(d, b.lo[d]), sep);
        spacing += fmt::format("{:.17g}{}", g.dx[d], sep);
      }
      s += fmt::format(
          "    <Grid Name=\"level_{}_patch_{}\" GridType=\"Uniform\">\n"
          "     <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"{}\"/>\n"
          "     <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
          "      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
          "Format=\"XML\">{}</DataItem>\n"
          "      <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" "
          "Format=\"XML\">{}</DataItem>\n"
          "     </Geometry>\n",
          l, p, nodes, origin, spacing);
      for (int c = 0; c < ncomp; ++c)
        s += slab_attribute(component_names[c], dims, (cells[p] * ncomp) + c * nc, nc,
                            cells.back() * ncomp, "Float", 8,
                            h5_name + ":" + level + "data_datatype_0");
      s += slab_attribute("vtkGhostType", dims, cells[p], nc, cells.back(), "UChar", 1,
                          h5_name + ":" + level + "vtkGhostType");
      s += "    </Grid>\n";
    }
    s += "   </Grid>\n";
  }
  s += "  </Grid>\n </Domain>\n</Xdmf>\n";
  return s;
}

}  // namespace pw
