/* syrk (Polybench kind): symmetric rank-k update of the lower triangle, C = alpha*A*A^T + beta*C.
 * Usage: syrk N M */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_syrk(int n, int m, double alpha, double beta, double *C,
                                                  const double *A) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) C[i * n + j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++) C[i * n + j] += alpha * A[i * m + k] * A[j * m + k];
  }
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: syrk N M\n"); return 2; }
  int n = atoi(argv[1]), m = atoi(argv[2]);
  double *A = malloc(sizeof(double) * n * m), *C = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n * m; i++) A[i] = (double)(i % 10) / 10.0;
  for (int i = 0; i < n * n; i++) C[i] = (double)(i % 3) / 3.0;
  kernel_syrk(n, m, 1.5, 1.2, C, A);
  double s = 0;
  for (int i = 0; i < n * n; i++) s += C[i];
  printf("%.6g\n", s);
  return 0;
}
