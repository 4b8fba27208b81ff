/* ATmega328P hardware layer: UART (interrupt-driven receive into a ring buffer), a 1 kHz Timer1 tick for
 * blinking, and the LED output: 32 WS2812 bit-banged on PD6 (Arduino pin 6), or with -DDL_MAX7219 an
 * 8x8 MAX7219 matrix on PB3/PB5/PB2 (Arduino pins 11 DIN, 13 CLK, 10 CS). */
#include <avr/interrupt.h>
#include <avr/io.h>

#include "dama_leds.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif

#define SLOW_HALF_MS 500 /* blinkslow: 1 Hz */
#define FAST_HALF_MS 125 /* blinkfast: 4 Hz */

/* ---------------------------------------------------------------------------------------- UART */

#define RX_SIZE 64 /* power of two */
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;

ISR(USART_RX_vect)
{
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));
    if (next != rx_tail) { /* full: drop the byte; the line's checksum will fail and the host resends */
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

int dl_hw_getc(void)
{
    if (rx_head == rx_tail) return -1;
    uint8_t c = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
    return c;
}

void dl_hw_putc(char c)
{
    while (!(UCSR0A & _BV(UDRE0))) {
    }
    UDR0 = (uint8_t)c;
}

/* ---------------------------------------------------------------------------------------- tick */

static volatile uint32_t ms;

ISR(TIMER1_COMPA_vect) { ms++; }

static uint32_t now_ms(void)
{
    uint8_t sreg = SREG;
    cli();
    uint32_t t = ms;
    SREG = sreg;
    return t;
}

/* 1 if a square in mode m is lit at the blink phases given */
static uint8_t visible(uint8_t m, uint8_t slow_on, uint8_t fast_on)
{
    return m == DL_ON || (m == DL_SLOW && slow_on) || (m == DL_FAST && fast_on);
}

static uint8_t phase_slow = 1, phase_fast = 1;

/* ---------------------------------------------------------------------------------------- LEDs */

#ifndef DL_MAX7219

const char dl_hw_caps[] = "rgb=1 blink=1 bright=1 hw=ws2812";

#define WS_PORT PORTD
#define WS_DDR DDRD
#define WS_BIT PD6

/* Send n bytes to the WS2812 chain: 20 cycles (1.25 us) per bit at 16 MHz; a 0 is high 5 cycles
 * (0.31 us), a 1 is high 12 cycles (0.75 us). Interrupts are off for the ~1 ms the 96 bytes take. */
static void ws2812_send(const uint8_t *buf, uint8_t n)
{
    uint8_t hi = WS_PORT | _BV(WS_BIT);
    uint8_t lo = WS_PORT & (uint8_t)~_BV(WS_BIT);
    uint8_t sreg = SREG;
    cli();
    while (n--) {
        uint8_t byte = *buf++;
        uint8_t cnt = 8;
        __asm__ volatile(
            "1:                  \n\t"
            "out  %[port], %[hi] \n\t" /* c0   rising edge */
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "sbrs %[byte], 7     \n\t" /* c4   skip the early fall for a 1 */
            "out  %[port], %[lo] \n\t" /* c5   falling edge of a 0 */
            "lsl  %[byte]        \n\t" /* c6 */
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "out  %[port], %[lo] \n\t" /* c12  falling edge of a 1 */
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "nop                 \n\t"
            "dec  %[cnt]         \n\t" /* c17 */
            "brne 1b             \n\t" /* c18-19 */
            : [byte] "+r"(byte), [cnt] "+r"(cnt)
            : [port] "I"(_SFR_IO_ADDR(WS_PORT)), [hi] "r"(hi), [lo] "r"(lo));
    }
    SREG = sreg;
}

/* Chain position k -> square index: the strip runs serpentine, rank 1 from a1 to g1, rank 2 back from
 * h2 to b2, rank 3 from a3 to g3 ... (docs/serial-protocol.md has the wiring diagram). */
static uint8_t chain_square(uint8_t k)
{
    uint8_t rank = k >> 2, j = k & 3;
    return (uint8_t)(rank * 4 + ((rank & 1) ? 3 - j : j));
}

static void render(void)
{
    uint8_t out[DL_SQUARES * 3];
    uint16_t scale = (uint16_t)dl_state.brightness + 1;
    for (uint8_t k = 0; k < DL_SQUARES; k++) {
        uint8_t sq = chain_square(k);
        uint8_t on = visible(dl_state.mode[sq], phase_slow, phase_fast);
        const uint8_t *c = dl_state.rgb[sq];
        out[3 * k + 0] = on ? (uint8_t)((c[1] * scale) >> 8) : 0; /* WS2812 wants G, R, B */
        out[3 * k + 1] = on ? (uint8_t)((c[0] * scale) >> 8) : 0;
        out[3 * k + 2] = on ? (uint8_t)((c[2] * scale) >> 8) : 0;
    }
    ws2812_send(out, sizeof out);
}

static void leds_init(void) { WS_DDR |= _BV(WS_BIT); }

#else /* MAX7219 */

const char dl_hw_caps[] = "rgb=0 blink=1 bright=1 hw=max7219";

#define MX_DIN PB3
#define MX_CLK PB5
#define MX_CS PB2

static void max7219_write(uint8_t reg, uint8_t value)
{
    uint16_t word = (uint16_t)reg << 8 | value;
    PORTB &= (uint8_t)~_BV(MX_CS);
    for (uint8_t i = 0; i < 16; i++) {
        if (word & 0x8000) PORTB |= _BV(MX_DIN);
        else PORTB &= (uint8_t)~_BV(MX_DIN);
        PORTB |= _BV(MX_CLK);
        PORTB &= (uint8_t)~_BV(MX_CLK);
        word <<= 1;
    }
    PORTB |= _BV(MX_CS); /* rising CS latches the 16 bits */
}

/* Row register 1..8 = ranks 1..8; bit 7 - file (a = bit 7) so the matrix reads like the board. */
static void render(void)
{
    max7219_write(0x0A, dl_state.brightness >> 4); /* intensity 0..15 */
    for (uint8_t rank = 0; rank < 8; rank++) {
        uint8_t bits = 0;
        for (uint8_t j = 0; j < 4; j++) {
            uint8_t sq = (uint8_t)(rank * 4 + j);
            uint8_t file = (uint8_t)(2 * j + (rank & 1));
            if (visible(dl_state.mode[sq], phase_slow, phase_fast)) bits |= (uint8_t)(0x80 >> file);
        }
        max7219_write((uint8_t)(rank + 1), bits);
    }
}

static void leds_init(void)
{
    DDRB |= _BV(MX_DIN) | _BV(MX_CLK) | _BV(MX_CS);
    PORTB |= _BV(MX_CS);
    max7219_write(0x0F, 0); /* display test off */
    max7219_write(0x09, 0); /* no BCD decoding */
    max7219_write(0x0B, 7); /* scan all 8 rows */
    max7219_write(0x0C, 1); /* leave shutdown */
}

#endif

void dl_hw_show(void) { render(); }

void dl_hw_poll(void)
{
    uint32_t t = now_ms();
    uint8_t slow = (uint8_t)(((t / SLOW_HALF_MS) & 1) == 0);
    uint8_t fast = (uint8_t)(((t / FAST_HALF_MS) & 1) == 0);
    if (slow == phase_slow && fast == phase_fast) return;
    uint8_t blinking = 0;
    for (uint8_t i = 0; i < DL_SQUARES; i++)
        if ((dl_state.mode[i] == DL_SLOW && slow != phase_slow) || (dl_state.mode[i] == DL_FAST && fast != phase_fast))
            blinking = 1;
    phase_slow = slow;
    phase_fast = fast;
    if (blinking) render(); /* only when something visible changes: fewer interrupt-free windows */
}

void dl_hw_init(void)
{
    cli();
    /* UART 115200 8N1, double speed: UBRR = 16 gives 117647 baud (2.1 % off, as every Arduino) */
    UCSR0A = _BV(U2X0);
    UBRR0H = 0;
    UBRR0L = (uint8_t)(F_CPU / 8 / 115200 - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    /* Timer1 CTC at 1 kHz: 16 MHz / 8 / 2000 */
    TCCR1A = 0;
    TCCR1B = _BV(WGM12) | _BV(CS11);
    OCR1A = (uint16_t)(F_CPU / 8 / 1000 - 1);
    TIMSK1 = _BV(OCIE1A);
    leds_init();
    sei();
}
