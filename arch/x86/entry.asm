; SPDX-License-Identifier: MIT
; Interrupt and exception entry: one stub per vector pushes a dummy error code where the CPU
; pushes none, then the vector, and jumps to a common path that saves the general registers
; as a struct trap_frame (arch/x86/traps.h) and calls trap_handler(frame).

bits 64
extern trap_handler
global isr_stub_table
global isr_after_handler

section .text

; Vectors for which the CPU pushes an error code: #DF #TS #NP #SS #GP #PF #AC #CP #VC #SX
%macro ISR_STUB 1
isr_stub_%1:
%if %1 = 8 || (%1 >= 10 && %1 <= 14) || %1 = 17 || %1 = 21 || %1 = 29 || %1 = 30
	push qword %1
%else
	push qword 0
	push qword %1
%endif
	jmp isr_common
%endmacro

%assign v 0
%rep 256
	ISR_STUB v
%assign v v + 1
%endrep

isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp			; struct trap_frame *
	call trap_handler
isr_after_handler:			; arch/x86/traps.c: a return here marks a trap frame
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16			; vector and error code
	iretq

section .rodata
align 8
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_ %+ v
%assign v v + 1
%endrep

section .note.GNU-stack noalloc noexec nowrite progbits
