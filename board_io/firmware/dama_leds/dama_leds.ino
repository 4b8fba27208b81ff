// dama-leds: LEDs under the 32 dark squares of a draughts board, driven over USB serial (115200 8N1).
// The code is plain C in this folder (dl_core.c: protocol, dl_avr.c: UART, timer, LEDs) so that the
// very same code builds with avr-gcc and runs under simavr in the test suite. For a MAX7219 matrix
// instead of WS2812 LEDs, uncomment DL_MAX7219 in dama_leds.h (or build with make VARIANT=max7219).
#include "dama_leds.h"

void setup() { dl_setup(); }

void loop() { dl_loop(); }
