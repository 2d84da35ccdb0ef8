/* bicg (Polybench kind): s = A^T r and q = A p, the two products of a BiCG step.  Usage: bicg M N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_bicg(int m, int n, const double *A, double *s, double *q,
                                                  const double *p, const double *r) {
  for (int i = 0; i < m; i++) s[i] = 0;
  for (int i = 0; i < n; i++) {
    q[i] = 0.0;
    for (int j = 0; j < m; j++) {
      s[j] += r[i] * A[i * m + j];
      q[i] += A[i * m + j] * p[j];
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: bicg M N\n"); return 2; }
  int m = atoi(argv[1]), n = atoi(argv[2]);
  double *A = malloc(sizeof(double) * n * m), *s = malloc(sizeof(double) * m), *q = malloc(sizeof(double) * n);
  double *p = malloc(sizeof(double) * m), *r = malloc(sizeof(double) * n);
  for (int i = 0; i < n * m; i++) A[i] = (double)(i % 23) / 23.0;
  for (int j = 0; j < m; j++) p[j] = (double)(j % 5) / 5.0;
  for (int i = 0; i < n; i++) r[i] = (double)(i % 7) / 7.0;
  kernel_bicg(m, n, A, s, q, p, r);
  double t = 0;
  for (int j = 0; j < m; j++) t += s[j];
  for (int i = 0; i < n; i++) t += q[i];
  printf("%.6g\n", t);
  return 0;
}
