#include "amr/io/rank_errors.hpp"

#include <vector>

namespace pw {

std::string first_error(const Comm& comm, const std::string& mine) {
  int first = mine.empty() ? comm.size() : comm.rank();
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm.raw());
  if (first == comm.size()) return "";
  int n = comm.rank() == first ? int(mine.size()) : 0;
  MPI_Bcast(&n, 1, MPI_INT, first, comm.raw());
  std::vector<char> text(size_t(n) + 1, '\0');
  if (comm.rank() == first) mine.copy(text.data(), size_t(n));
  MPI_Bcast(text.data(), n, MPI_CHAR, first, comm.raw());
  return std::string(text.data(), size_t(n));
}

}  // namespace pw
