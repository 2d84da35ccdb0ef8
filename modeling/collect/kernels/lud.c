/* lud (Rodinia kind): blocked LU decomposition in 16 x 16 tiles, as the GPU version steps through the matrix:
 * the diagonal tile, the perimeter tiles of its row and column, then the interior; the last tile may be
 * partial.  Usage: lud N */
#include <stdio.h>
#include <stdlib.h>

#define BS 16
#define MIN(a, b) ((a) < (b) ? (a) : (b))

__attribute__((noinline)) static void lud_diagonal(int n, int off, double *A) {
  int bs = MIN(BS, n - off);
  for (int i = 0; i < bs; i++) {
    for (int j = i; j < bs; j++)
      for (int k = 0; k < i; k++) A[(off + i) * n + off + j] -= A[(off + i) * n + off + k] * A[(off + k) * n + off + j];
    for (int j = i + 1; j < bs; j++) {
      for (int k = 0; k < i; k++) A[(off + j) * n + off + i] -= A[(off + j) * n + off + k] * A[(off + k) * n + off + i];
      A[(off + j) * n + off + i] /= A[(off + i) * n + off + i];
    }
  }
}

__attribute__((noinline)) static void lud_perimeter(int n, int off, double *A) {
  for (int blk = off + BS; blk < n; blk += BS) {
    int w = MIN(BS, n - blk);
    for (int i = 0; i < BS; i++)          /* the row tile to the right of the diagonal */
      for (int j = 0; j < w; j++)
        for (int k = 0; k < i; k++) A[(off + i) * n + blk + j] -= A[(off + i) * n + off + k] * A[(off + k) * n + blk + j];
    for (int i = 0; i < w; i++)           /* the column tile below it */
      for (int j = 0; j < BS; j++) {
        for (int k = 0; k < j; k++) A[(blk + i) * n + off + j] -= A[(blk + i) * n + off + k] * A[(off + k) * n + off + j];
        A[(blk + i) * n + off + j] /= A[(off + j) * n + off + j];
      }
  }
}

__attribute__((noinline)) static void lud_internal(int n, int off, double *A) {
  for (int bi = off + BS; bi < n; bi += BS)
    for (int bj = off + BS; bj < n; bj += BS) {
      int h = MIN(BS, n - bi), w = MIN(BS, n - bj);
      for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
          double sum = 0;
          for (int k = 0; k < BS; k++) sum += A[(bi + i) * n + off + k] * A[(off + k) * n + bj + j];
          A[(bi + i) * n + bj + j] -= sum;
        }
    }
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: lud N\n"); return 2; }
  int n = atoi(argv[1]);
  double *A = malloc(sizeof(double) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = (i == j) ? n + 1.0 : (double)((i * 7 + j * 3) % 11) / 11.0;
  int off = 0;
  for (; off + BS < n; off += BS) {
    lud_diagonal(n, off, A);
    lud_perimeter(n, off, A);
    lud_internal(n, off, A);
  }
  lud_diagonal(n, off, A);
  double s = 0;
  for (int i = 0; i < n * n; i++) s += A[i];
  printf("%.6g\n", s);
  return 0;
}
