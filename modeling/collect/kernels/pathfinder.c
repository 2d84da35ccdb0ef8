/* pathfinder (Rodinia kind): the cheapest top-to-bottom path through a random ROWS x COLS grid, computed
 * PYRAMID rows per launch as the GPU version does; each cell takes the smallest of three neighbours, a
 * data-dependent branch.  Usage: pathfinder ROWS COLS PYRAMID */
#include <stdio.h>
#include <stdlib.h>

static unsigned lcg(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

__attribute__((noinline)) static void dynproc(int cols, int start, int steps, const int *wall, int *src, int *dst) {
  for (int h = 0; h < steps; h++) {
    for (int c = 0; c < cols; c++) {
      int best = src[c];
      if (c > 0 && src[c - 1] < best) best = src[c - 1];
      if (c < cols - 1 && src[c + 1] < best) best = src[c + 1];
      dst[c] = wall[(start + h + 1) * cols + c] + best;
    }
    for (int c = 0; c < cols; c++) src[c] = dst[c];
  }
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: pathfinder ROWS COLS PYRAMID\n"); return 2; }
  int rows = atoi(argv[1]), cols = atoi(argv[2]), pyramid = atoi(argv[3]);
  int *wall = malloc(sizeof(int) * rows * cols), *a = malloc(sizeof(int) * cols), *b = malloc(sizeof(int) * cols);
  unsigned seed = 9;
  for (int i = 0; i < rows * cols; i++) wall[i] = lcg(&seed) % 10;
  for (int c = 0; c < cols; c++) a[c] = wall[c];
  for (int t = 0; t < rows - 1; t += pyramid) {
    int steps = rows - 1 - t < pyramid ? rows - 1 - t : pyramid;
    dynproc(cols, t, steps, wall, a, b);
  }
  int best = a[0];
  for (int c = 1; c < cols; c++) if (a[c] < best) best = a[c];
  printf("%d\n", best);
  return 0;
}
