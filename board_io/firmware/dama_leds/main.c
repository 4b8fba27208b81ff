/* Entry point for plain avr-gcc builds (make, simavr); the Arduino IDE uses dama_leds.ino instead. */
#ifndef ARDUINO
#include "dama_leds.h"

int main(void)
{
    dl_setup();
    for (;;) dl_loop();
}
#endif
