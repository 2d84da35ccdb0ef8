/* lu (Polybench kind): in-place LU decomposition without pivoting.  Usage: lu N */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void kernel_lu(int n, double *A) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++) A[i * n + j] -= A[i * n + k] * A[k * n + j];
      A[i * n + j] /= A[j * n + j];
    }
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++) A[i * n + j] -= A[i * n + k] * A[k * n + j];
  }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: lu N\n"); return 2; }
  int n = atoi(argv[1]);
  double *A = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = (i == j) ? n + 1.0 : (double)((i + j) % 5) / (2.0 * n);
  kernel_lu(n, A);
  double s = 0;
  for (int i = 0; i < n * n; i++) s += A[i];
  printf("%.6g\n", s);
  return 0;
}
