#include "amr/io/output.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "amr/io/h5_util.hpp"
#include "amr/io/rank_errors.hpp"
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
  // The names made from it ("<prefix>_summary.previous.json", a dump's
  // "<prefix>_NNNNN.h5.tmp.room") add up to 40 bytes, and most file systems allow 255:
  // longer, the run would stop at its first dump, its steps lost.
  if (c.prefix.size() > kMaxPrefixBytes)
    deck.fail("output.prefix",
              fmt::format("expected at most {} bytes (the file names add up to 40 to it; "
                          "most file systems allow 255), got {}",
                          kMaxPrefixBytes, c.prefix.size()));
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
          "domain.prob_lo is not 0: yt.load places the domain at the origin; open the "
          "dumps with tools/patchwork_yt.load, which places it at prob_lo (recorded in "
          "Chombo_global and the .xmf)");
      break;
    }
  return w;
}

namespace {

/// `what` failed on `path`: the system's reason (errno).
std::string failure(const std::string& what, const std::string& path) {
  return fmt::format("{} {}: {}", what, path, std::strerror(errno));
}

/// Write `text` to `path` + ".tmp", on the disk (fsync) before it returns. Returns ""
/// or what failed; a failed file is removed.
std::string write_text(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return failure("cannot create", tmp);
  std::string why;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0 ||
      ::fsync(::fileno(f)) != 0)
    why = failure("cannot write", tmp);
  if (std::fclose(f) != 0 && why.empty()) why = failure("cannot write", tmp);
  if (!why.empty()) std::remove(tmp.c_str());
  return why;
}

/// Check that `bytes` fit beside `path`: allocate them in a scratch file (counted by the
/// disk and the quota as the dump will be), then remove it. Returns "" or what failed.
std::string check_room(const std::string& path, long bytes) {
  const std::string scratch = path + ".room";
  const int fd = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return failure("cannot create", scratch);
  const int err = ::posix_fallocate(fd, 0, off_t(bytes));
  ::close(fd);
  std::remove(scratch.c_str());
  if (err == 0) return "";
  return fmt::format("no room for its {} bytes: {}", bytes, std::strerror(err));
}

/// Create `path` as an empty HDF5 file (serially: this is rank 0's part) with `bytes`
/// reserved for it beyond its end, so that the collective writes into it cannot run out
/// of room: HDF5 1.10 hangs closing a parallel file whose writes failed on some ranks
/// only. Where the file system cannot reserve, check_room's answer has to do. Returns ""
/// or what failed; then nothing is left.
std::string create_reserved(const std::string& path, long bytes) {
  std::string why = check_room(path, bytes);
  if (!why.empty()) return why;
  {
    const h5::Quiet quiet;
    hid_t f = -1;
    try {  // rank 0's part alone: an error must come back as a reason, not a throw
      f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                    h5::checked_format_access());
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty() && (f < 0 || H5Fclose(f) < 0))
      why = "cannot create " + path + h5::error_cause();
  }
  if (why.empty()) {
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0 || (::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, off_t(bytes)) != 0 &&
                   errno != EOPNOTSUPP))
      why = fmt::format("no room for its {} bytes: {}", bytes, std::strerror(errno));
    if (fd >= 0) ::close(fd);
  }
  if (!why.empty()) std::remove(path.c_str());
  return why;
}

/// Give back what create_reserved reserved beyond the end of `path` (a shrinking
/// truncation frees the blocks past the new end on every file system).
void release_reserve(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  if (::truncate(path.c_str(), st.st_size + 1) == 0) ::truncate(path.c_str(), st.st_size);
}

/// Whether this rank can open `path` (rank 0 created it) for writing, as the collective
/// open will: "" or what failed. A rank that cannot (another view of the file system, a
/// read-only mount) would leave the others waiting in that open.
std::string can_open(const std::string& path, int rank) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd >= 0) {
    ::close(fd);
    return "";
  }
  return fmt::format("rank {} cannot open {} for writing: {}", rank, path,
                     std::strerror(errno));
}

/// write_chombo (collective; the file is closed on return): "" or what failed here.
std::string try_write_chombo(const Hierarchy& h, const DumpInfo& info,
                             const std::string& path) {
  try {
    write_chombo(h, info, path);
  } catch (const UnclosableFile&) {
    throw;  // no rank can go on
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

/// Rename `from` to `to`; returns "" or what failed.
std::string rename_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) == 0) return "";
  return fmt::format("cannot rename {} to {}: {}", from, to, std::strerror(errno));
}

/// Rank 0's part of a dump once every rank has written the .h5.tmp: the .xmf.tmp, then
/// each renamed to its final name. Returns "" or what failed; on failure the temporary
/// files are removed, and no final name holds an incomplete file.
std::string publish(const std::string& h5, const std::string& xmf,
                    const std::string& xmf_text) {
  std::string why = write_text(xmf, xmf_text);
  if (why.empty()) why = rename_file(h5 + ".tmp", h5);
  if (why.empty()) {
    why = rename_file(xmf + ".tmp", xmf);
    if (!why.empty()) std::remove(h5.c_str());  // a dump is both files or none
  }
  if (!why.empty()) {
    std::remove((h5 + ".tmp").c_str());
    std::remove((xmf + ".tmp").c_str());
  }
  return why;
}

/// Rank 0 found `why` (or nothing): every rank throws the same error, or none does.
void agree_on_output_dir(const OutputConfig& cfg, const Comm& comm,
                         const std::string& why) {
  if (comm.sum(long(!why.empty())) > 0)
    throw UserError(fmt::format("output.dir: cannot create directory '{}'{}", cfg.dir,
                                why.empty() ? "" : ": " + why));
}

}  // namespace

void check_output_dir(const OutputConfig& cfg, const Comm& comm) {
  std::string why;
  if (comm.rank() == 0) {
    // The nearest part of the path that exists must be a directory one may write in.
    std::error_code ec;
    fs::path p = fs::absolute(cfg.dir, ec);
    while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path())
      p = p.parent_path();
    if (!fs::is_directory(p, ec))
      why = p.string() + " is not a directory";
    else if (::access(p.c_str(), W_OK | X_OK) != 0)
      why = p.string() + ": " + std::strerror(errno);
  }
  agree_on_output_dir(cfg, comm, why);
}

void make_output_dir(const OutputConfig& cfg, const Comm& comm) {
  std::string why;
  if (comm.rank() == 0) {
    std::error_code ec;
    fs::create_directories(cfg.dir, ec);
    if (ec || !fs::is_directory(cfg.dir)) why = ec ? ec.message() : "not a directory";
  }
  agree_on_output_dir(cfg, comm, why);
}

std::string write_dump(const Hierarchy& h, const DumpInfo& info,
                       const OutputConfig& cfg) {
  const Comm& comm = h.comm();
  const std::string base = fmt::format("{}_{:05d}", cfg.prefix, info.step);
  const fs::path dir(cfg.dir);
  make_output_dir(cfg, comm);
  const std::string h5 = (dir / (base + ".h5")).string();
  const std::string xmf = (dir / (base + ".xmf")).string();
  std::string why = first_error(
      comm, comm.rank() == 0 ? create_reserved(h5 + ".tmp", dump_bytes(h, info)) : "");
  if (why.empty()) why = first_error(comm, can_open(h5 + ".tmp", comm.rank()));
  try {
    if (why.empty()) why = try_write_chombo(h, info, h5 + ".tmp");
  } catch (const UnclosableFile& e) {
    if (comm.rank() == 0) std::remove((h5 + ".tmp").c_str());  // open, but not a dump
    throw UnclosableFile(fmt::format("cannot write the dump {}: {}", h5, e.what()));
  }
  if (comm.rank() == 0) release_reserve(h5 + ".tmp");
  // Every rank has finished writing; if any failed, all stop here together.
  why = first_error(comm, why);
  if (why.empty() && comm.rank() == 0)
    why = publish(h5, xmf, xdmf_text(h, info.component_names, base + ".h5"));
  else if (comm.rank() == 0)
    std::remove((h5 + ".tmp").c_str());
  why = first_error(comm, why);  // the files are complete for every rank on return
  if (!why.empty()) throw UserError(fmt::format("cannot write the dump {}: {}", h5, why));
  return h5;
}

}  // namespace pw
