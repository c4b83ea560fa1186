#include "amr/io/rank_errors.hpp"

namespace pw {

std::string first_error(const Comm& comm, const std::string& mine) {
  int first = mine.empty() ? comm.size() : comm.rank();
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm.raw());
  if (first == comm.size()) return "";
  return comm.broadcast(mine, first);
}

}  // namespace pw
