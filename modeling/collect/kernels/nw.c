/* nw (Rodinia kind): Needleman-Wunsch alignment of two random sequences of length N, filled in 16 x 16 tiles
 * along anti-diagonals (upper-left triangle of tiles, then lower-right) as the GPU version does; each cell
 * takes the largest of three moves, a data-dependent branch.  Usage: nw N */
#include <stdio.h>
#include <stdlib.h>

#define BS 16
#define PENALTY 10

static unsigned lcg(unsigned *s) { *s = *s * 1103515245u + 12345u; return (*s >> 16) & 0x7fff; }

__attribute__((noinline)) static int maximum(int a, int b, int c) {
  int k = a <= b ? b : a;
  return k <= c ? c : k;
}

__attribute__((noinline)) static void nw_tile(int cols, int bx, int by, int *score, const int *ref) {
  for (int i = 1 + by * BS; i <= (by + 1) * BS && i < cols; i++)
    for (int j = 1 + bx * BS; j <= (bx + 1) * BS && j < cols; j++)
      score[i * cols + j] = maximum(score[(i - 1) * cols + j - 1] + ref[i * cols + j],
                                    score[i * cols + j - 1] - PENALTY, score[(i - 1) * cols + j] - PENALTY);
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: nw N\n"); return 2; }
  int n = atoi(argv[1]), cols = n + 1, tiles = (n + BS - 1) / BS;
  int *score = calloc((size_t)cols * cols, sizeof(int)), *ref = malloc(sizeof(int) * cols * cols);
  int *s1 = malloc(sizeof(int) * cols), *s2 = malloc(sizeof(int) * cols);
  unsigned seed = 7;
  for (int i = 1; i < cols; i++) { s1[i] = lcg(&seed) % 10 + 1; s2[i] = lcg(&seed) % 10 + 1; }
  for (int i = 1; i < cols; i++)
    for (int j = 1; j < cols; j++) ref[i * cols + j] = s1[i] == s2[j] ? 5 : -((s1[i] + s2[j]) % 4);
  for (int i = 1; i < cols; i++) { score[i * cols] = -i * PENALTY; score[i] = -i * PENALTY; }
  for (int d = 0; d < tiles; d++)
    for (int b = 0; b <= d; b++) nw_tile(cols, b, d - b, score, ref);
  for (int d = tiles - 2; d >= 0; d--)
    for (int b = 0; b <= d; b++) nw_tile(cols, tiles - 1 - d + b, tiles - 1 - b, score, ref);
  printf("%d\n", score[n * cols + n]);
  return 0;
}
