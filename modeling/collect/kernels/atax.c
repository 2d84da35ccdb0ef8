/* atax (Polybench kind): y = A^T (A x).  Usage: atax M N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_atax(int m, int n, const double *A, const double *x, double *y,
                                                  double *tmp) {
  for (int i = 0; i < n; i++) y[i] = 0.0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++) tmp[i] += A[i * n + j] * x[j];
    for (int j = 0; j < n; j++) y[j] += A[i * n + j] * tmp[i];
  }
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: atax M N\n"); return 2; }
  int m = atoi(argv[1]), n = atoi(argv[2]);
  double *A = malloc(sizeof(double) * m * n), *x = malloc(sizeof(double) * n);
  double *y = malloc(sizeof(double) * n), *tmp = malloc(sizeof(double) * m);
  for (int i = 0; i < m * n; i++) A[i] = (double)((i * 3) % 19) / 19.0;
  for (int j = 0; j < n; j++) x[j] = 1.0 + j / (double)n;
  kernel_atax(m, n, A, x, y, tmp);
  double s = 0;
  for (int j = 0; j < n; j++) s += y[j];
  printf("%.6g\n", s);
  return 0;
}
