#include <stdint.h>
int add(int a, int b) { return a + b; }
