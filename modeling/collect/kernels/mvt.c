/* mvt (Polybench kind): x1 += A y1 and x2 += A^T y2.  Usage: mvt N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_mvt(int n, double *x1, double *x2, const double *y1,
                                                 const double *y2, const double *A) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) x1[i] += A[i * n + j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) x2[i] += A[j * n + i] * y2[j];
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: mvt N\n"); return 2; }
  int n = atoi(argv[1]);
  double *A = malloc(sizeof(double) * n * n), *x1 = malloc(sizeof(double) * n), *x2 = malloc(sizeof(double) * n);
  double *y1 = malloc(sizeof(double) * n), *y2 = malloc(sizeof(double) * n);
  for (int i = 0; i < n * n; i++) A[i] = (double)(i % 8) / 8.0;
  for (int i = 0; i < n; i++) { x1[i] = 0; x2[i] = 0; y1[i] = (double)(i % 3); y2[i] = (double)(i % 5); }
  kernel_mvt(n, x1, x2, y1, y2, A);
  double s = 0;
  for (int i = 0; i < n; i++) s += x1[i] + x2[i];
  printf("%.6g\n", s);
  return 0;
}
