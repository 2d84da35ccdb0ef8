/* gesummv (Polybench kind): y = alpha*A*x + beta*B*x.  Usage: gesummv N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_gesummv(int n, double alpha, double beta, const double *A,
                                                     const double *B, double *tmp, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      tmp[i] += A[i * n + j] * x[j];
      y[i] += B[i * n + j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: gesummv N\n"); return 2; }
  int n = atoi(argv[1]);
  double *A = malloc(sizeof(double) * n * n), *B = malloc(sizeof(double) * n * n);
  double *tmp = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  for (int i = 0; i < n * n; i++) { A[i] = (double)(i % 9) / 9.0; B[i] = (double)(i % 4) / 4.0; }
  for (int j = 0; j < n; j++) x[j] = (double)(j % 3);
  kernel_gesummv(n, 1.5, 1.2, A, B, tmp, x, y);
  double s = 0;
  for (int i = 0; i < n; i++) s += y[i];
  printf("%.6g\n", s);
  return 0;
}
