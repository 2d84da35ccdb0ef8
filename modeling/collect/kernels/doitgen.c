/* doitgen (Polybench kind): multiresolution analysis, A[r][q][:] = A[r][q][:] * C4.  Usage: doitgen NQ NR NP */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_doitgen(int nr, int nq, int np, double *A, const double *C4,
                                                     double *sum) {
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++) sum[p] += A[(r * nq + q) * np + s] * C4[s * np + p];
      }
      for (int p = 0; p < np; p++) A[(r * nq + q) * np + p] = sum[p];
    }
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: doitgen NQ NR NP\n"); return 2; }
  int nq = atoi(argv[1]), nr = atoi(argv[2]), np = atoi(argv[3]);
  double *A = malloc(sizeof(double) * nr * nq * np), *C4 = malloc(sizeof(double) * np * np);
  double *sum = malloc(sizeof(double) * np);
  for (int i = 0; i < nr * nq * np; i++) A[i] = (double)(i % 13) / 13.0;
  for (int i = 0; i < np * np; i++) C4[i] = (double)(i % 7) / 7.0;
  kernel_doitgen(nr, nq, np, A, C4, sum);
  double s = 0;
  for (int i = 0; i < nr * nq * np; i++) s += A[i];
  printf("%.6g\n", s);
  return 0;
}
