/* gaussian (Rodinia kind): Gaussian elimination as the GPU version launches it, one Fan1 (multipliers) and one
 * Fan2 (row update) grid per column t; each grid is padded to whole thread blocks (64 threads for Fan1, 4 x 4
 * for Fan2) and the threads outside the matrix return at once, then back substitution.  Usage: gaussian N */
#include <stdio.h>
#include <stdlib.h>

#define FAN1_BLOCK 64
#define FAN2_BLOCK 4

__attribute__((noinline)) static void fan1(int n, int t, double *m, const double *a) {
  int threads = (n + FAN1_BLOCK - 1) / FAN1_BLOCK * FAN1_BLOCK;
  for (int id = 0; id < threads; id++) {
    if (id >= n - 1 - t) continue;
    m[(id + t + 1) * n + t] = a[(id + t + 1) * n + t] / a[t * n + t];
  }
}

__attribute__((noinline)) static void fan2(int n, int t, const double *m, double *a, double *b) {
  int side = (n + FAN2_BLOCK - 1) / FAN2_BLOCK * FAN2_BLOCK;
  for (int x = 0; x < side; x++)
    for (int y = 0; y < side; y++) {
      if (x >= n - 1 - t || y >= n - t) continue;
      a[(x + 1 + t) * n + y + t] -= m[(x + 1 + t) * n + t] * a[t * n + y + t];
      if (y == 0) b[x + 1 + t] -= m[(x + 1 + t) * n + t] * b[t];
    }
}

__attribute__((noinline)) static void back_substitution(int n, const double *a, const double *b, double *x) {
  for (int i = 0; i < n; i++) {
    x[n - i - 1] = b[n - i - 1];
    for (int j = 0; j < i; j++) x[n - i - 1] -= a[(n - i - 1) * n + n - j - 1] * x[n - j - 1];
    x[n - i - 1] /= a[(n - i - 1) * n + n - i - 1];
  }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: gaussian N\n"); return 2; }
  int n = atoi(argv[1]);
  double *a = malloc(sizeof(double) * n * n), *m = calloc((size_t)n * n, sizeof(double));
  double *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) a[i * n + j] = (i == j) ? 10.0 : 1.0 / (1.0 + abs(i - j));
    b[i] = 1.0;
  }
  for (int t = 0; t < n - 1; t++) {
    fan1(n, t, m, a);
    fan2(n, t, m, a, b);
  }
  back_substitution(n, a, b, x);
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  printf("%.6g\n", s);
  return 0;
}
