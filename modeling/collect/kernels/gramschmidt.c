/* gramschmidt (Polybench kind): QR decomposition of an N x N matrix by modified Gram-Schmidt.
 * Usage: gramschmidt N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_gramschmidt(int m, int n, double *A, double *R, double *Q) {
  for (int k = 0; k < n; k++) {
    double nrm = 0.0;
    for (int i = 0; i < m; i++) nrm += A[i * n + k] * A[i * n + k];
    R[k * n + k] = sqrt(nrm);
    for (int i = 0; i < m; i++) Q[i * n + k] = A[i * n + k] / R[k * n + k];
    for (int j = k + 1; j < n; j++) {
      R[k * n + j] = 0.0;
      for (int i = 0; i < m; i++) R[k * n + j] += Q[i * n + k] * A[i * n + j];
      for (int i = 0; i < m; i++) A[i * n + j] -= Q[i * n + k] * R[k * n + j];
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: gramschmidt N\n"); return 2; }
  int n = atoi(argv[1]), m = n;
  double *A = malloc(sizeof(double) * m * n), *R = malloc(sizeof(double) * n * n);
  double *Q = malloc(sizeof(double) * m * n);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = (i == j ? 10.0 : 0.0) + (double)((i * j) % 7) / 7.0;
  kernel_gramschmidt(m, n, A, R, Q);
  double s = 0;
  for (int i = 0; i < n * n; i++) s += R[i];
  printf("%.6g\n", s);
  return 0;
}
