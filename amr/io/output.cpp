#include "amr/io/output.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "amr/io/xdmf_writer.hpp"

namespace pw {

namespace fs = std::filesystem;

OutputConfig read_output_config(const Deck& deck) {
  OutputConfig c;
  c.write = deck.get("output.write", c.write);
  c.interval = deck.get("output.interval", c.interval);
  c.dir = deck.get("output.dir", c.dir);
  c.prefix = deck.get("output.prefix", c.prefix);
  if (c.interval < 0)
    deck.fail("output.interval",
              "expected a number of coarse steps >= 0 (0: only at the end), got " +
                  to_toml(c.interval));
  if (c.dir.empty()) deck.fail("output.dir", "expected a directory name, got \"\"");
  if (c.prefix.empty() || c.prefix.find('/') != std::string::npos)
    deck.fail("output.prefix", "expected a non-empty file name prefix without '/', got " +
                                   to_toml(c.prefix));
  return c;
}

std::vector<std::string> dump_warnings(const AmrConfig& cfg) {
  std::vector<std::string> w;
  for (int r : cfg.ref_ratio)
    if (r != cfg.ref_ratio.front()) {
      w.push_back(fmt::format(
          "amr.ref_ratio {}: yt takes every level's ratio from level 0 ({}); its view of "
          "the finer levels will be wrong (the dumps and ParaView are right)",
          to_toml(cfg.ref_ratio), cfg.ref_ratio.front()));
      break;
    }
  const LevelGeom& g = cfg.geom0;
  for (int d = 1; d < g.dim; ++d)
    if (std::abs(g.dx[d] - g.dx[0]) > 1e-12 * g.dx[0]) {
      w.push_back(
          "cells are not cubic: yt reads one dx (the x spacing) for all directions");
      break;
    }
  for (int d = 0; d < g.dim; ++d)
    if (g.prob_lo[d] != 0) {
      w.push_back(
          "domain.prob_lo is not 0: yt places the domain at the origin (the true origin "
          "is "
          "in Chombo_global/prob_lo and in the .xmf)");
      break;
    }
  return w;
}

namespace {

/// Write `text` to `path` through a temporary file and a rename.
void write_text_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
  }
  fs::rename(tmp, path);
}

}  // namespace

void make_output_dir(const OutputConfig& cfg, const Comm& comm) {
  std::string why;
  if (comm.rank() == 0) {
    std::error_code ec;
    fs::create_directories(cfg.dir, ec);
    if (ec || !fs::is_directory(cfg.dir)) why = ec ? ec.message() : "not a directory";
  }
  if (comm.sum(long(!why.empty())) > 0)
    throw UserError(fmt::format("output.dir: cannot create directory '{}'{}", cfg.dir,
                                why.empty() ? "" : ": " + why));
}

std::string write_dump(const Hierarchy& h, const DumpInfo& info,
                       const OutputConfig& cfg) {
  const Comm& comm = h.comm();
  const std::string base = fmt::format("{}_{:05d}", cfg.prefix, info.step);
  const fs::path dir(cfg.dir);
  make_output_dir(cfg, comm);
  const std::string h5 = (dir / (base + ".h5")).string();
  write_chombo(h, info, h5 + ".tmp");  // closed (collectively) on return
  comm.barrier();
  if (comm.rank() == 0) {
    fs::rename(h5 + ".tmp", h5);
    write_text_atomically((dir / (base + ".xmf")).string(),
                          xdmf_text(h, info.component_names, base + ".h5"));
  }
  comm.barrier();  // the files are complete for every rank on return
  return h5;
}

}  // namespace pw
