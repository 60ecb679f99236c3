// A truthful bot in Go: it plays the cards it claims, and challenges big claims.
// It speaks Arena's line protocol: one line in on stdin for each decision, one line out.
// Debug output goes to os.Stderr (shown to its owner only).
package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

func items(text string) []string {
	if text == "-" {
		return nil
	}
	return strings.Split(text, ",")
}

func rankOf(card string) string {
	if card == "JK" {
		return card
	}
	return card[:1]
}

// matching: cards that make a claim of rank true, that rank's first, then jokers.
func matching(hand []string, rank string) []string {
	var out []string
	for _, card := range hand {
		if rankOf(card) == rank {
			out = append(out, card)
		}
	}
	for _, card := range hand {
		if card == "JK" {
			out = append(out, card)
		}
	}
	return out
}

// bestLeadRank: the allowed rank the hand holds most of (ties: the first allowed).
func bestLeadRank(ranks, hand []string) string {
	best, most := ranks[0], 0
	for _, rank := range ranks {
		held := 0
		for _, card := range hand {
			if rankOf(card) == rank {
				held++
			}
		}
		if held > most {
			best, most = rank, held
		}
	}
	return best
}

func decide(f map[string]string) string {
	if f["phase"] == "quartets" {
		return "quartets " + f["quartets"]
	}
	live := items(f["live"]) // author,placed,rank,count,opening
	if f["challenge"] == "1" && len(live) == 5 {
		if count, _ := strconv.Atoi(live[3]); count > 2 {
			return "challenge"
		}
	}
	if f["play"] != "-" {
		ranks, hand := items(f["play"]), items(f["hand"])
		rank := ranks[0]
		if f["phase"] == "lead" {
			rank = bestLeadRank(ranks, hand)
		}
		cards := matching(hand, rank)
		if most, _ := strconv.Atoi(f["max_cards"]); len(cards) > most {
			cards = cards[:most]
		}
		if len(cards) == 0 {
			return fmt.Sprintf("play %s %s 1", hand[0], rank)
		}
		return fmt.Sprintf("play %s %s", strings.Join(cards, ","), rank)
	}
	if f["believe"] == "1" {
		return "believe"
	}
	return "challenge"
}

// answer: the answer to one line of input, or false for a line that needs none.
func answer(line string) (string, bool) {
	words := strings.Split(line, " ")
	if words[0] != "decide" { // "start" and "end" need no answer
		return "", false
	}
	fields := map[string]string{}
	for _, field := range words[1:] {
		if key, value, ok := strings.Cut(field, "="); ok {
			fields[key] = value
		}
	}
	return decide(fields), true
}

// Lines are read and written with raw system calls on non-blocking pipes, through the
// runtime's poller: while the program waits for a line its goroutine is parked and no
// thread sits in read, and a raw call does not wake the runtime's monitor thread, which
// each ordinary system call of an idle program does (on a busy machine, those wake-ups
// cost more than the decision itself).
func main() {
	in, out := rawPipe(0, "stdin"), rawPipe(1, "stdout")
	chunk, pending := make([]byte, 1<<16), []byte{}
	for {
		count := rawCall(in, syscall.SYS_READ, chunk)
		if count <= 0 {
			return // the input is closed (or failed): the program's work is over
		}
		pending = append(pending, chunk[:count]...)
		var answers []byte
		for at := bytes.IndexByte(pending, '\n'); at >= 0; at = bytes.IndexByte(pending, '\n') {
			if said, ok := answer(string(pending[:at])); ok {
				answers = append(append(answers, said...), '\n')
			}
			pending = pending[at+1:]
		}
		pending = append([]byte{}, pending...)
		for len(answers) > 0 {
			written := rawCall(out, syscall.SYS_WRITE, answers)
			if written <= 0 {
				return
			}
			answers = answers[written:]
		}
	}
}

func rawPipe(fd int, name string) syscall.RawConn {
	syscall.SetNonblock(fd, true)
	conn, err := os.NewFile(uintptr(fd), name).SyscallConn()
	if err != nil {
		panic(err)
	}
	return conn
}

// rawCall: read or write data on conn's pipe once it is ready; the bytes moved, or -1.
func rawCall(conn syscall.RawConn, call uintptr, data []byte) int {
	moved := -1
	ready := func(fd uintptr) bool {
		for {
			n, _, errno := syscall.RawSyscall(call, fd, uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)))
			switch errno {
			case syscall.EINTR:
				continue // interrupted: ask again at once
			case syscall.EAGAIN:
				return false // not ready: the poller waits, then asks again
			case 0:
				moved = int(n)
			}
			return true
		}
	}
	var err error
	if call == syscall.SYS_READ {
		err = conn.Read(ready)
	} else {
		err = conn.Write(ready)
	}
	if err != nil {
		return -1
	}
	return moved
}
