; SPDX-License-Identifier: MIT
; The AP trampoline: copied by arch/x86/smpboot.c to a free page below 1 MiB; each AP starts
; here in real mode after INIT-SIPI-SIPI (CS = page >> 4, IP = 0) and goes through 32-bit
; protected mode into long mode, takes a ticket, switches to that ticket's stack and calls
; ap_entry(ticket). The BSP fills in tr_gdtr's base and the far-jump targets tr_jmp32 and
; tr_jmp64 for the page it copies this to; the code itself writes nothing there.
; Layout constants: arch/x86/trampoline.h.

%include "trampoline.inc"

global trampoline_start
global trampoline_end
global tr_gdtr
global tr_jmp32
global tr_jmp64
global tr_pm32
global tr_lm64
global tr_gdt

section .trampoline progbits alloc exec align=16
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	movzx ebx, ax
	shl ebx, 4				; ebx = physical address of this page
	o32 lgdt [tr_gdtr - trampoline_start]
	mov eax, cr0
	or al, 1				; PE
	mov cr0, eax
	db 0x66, 0xea				; jmp dword TRAMP_SEL_CODE32:tr_pm32
tr_jmp32:
	dd 0
	dw TRAMP_SEL_CODE32

bits 32
tr_pm32:
	mov ax, TRAMP_SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5				; PAE
	mov cr4, eax
	mov eax, [ebx + TRAMP_CR3]
	mov cr3, eax
	mov ecx, 0xc0000080			; EFER
	rdmsr
	or eax, 1 << 8				; LME
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)		; PG, WP
	mov cr0, eax
	db 0xea					; jmp TRAMP_SEL_CODE64:tr_lm64
tr_jmp64:
	dd 0
	dw TRAMP_SEL_CODE64

bits 64
tr_lm64:
	mov ax, TRAMP_SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov eax, 1
	mov rcx, [rbx + TRAMP_TICKET]
	lock xadd [rcx], eax
	cmp eax, [rbx + TRAMP_NSTACKS]
	jae .park				; more APs woke than we prepared stacks for
	mov rcx, [rbx + TRAMP_STACKS]
	mov rsp, [rcx + rax * 8]
	xor ebp, ebp
	mov edi, eax
	mov rax, [rbx + TRAMP_ENTRY]
	call rax
.park:
	cli
	hlt
	jmp .park

align 8
tr_gdt:
	dq 0
	dq 0x00cf9a000000ffff			; 0x08: 32-bit code
	dq 0x00cf92000000ffff			; 0x10: data
	dq 0x00af9a000000ffff			; 0x18: 64-bit code
tr_gdt_end:
tr_gdtr:
	dw tr_gdt_end - tr_gdt - 1
	dd 0
trampoline_end:

%if trampoline_end - trampoline_start > TRAMP_PARAMS
%error "trampoline code overlaps its parameter block"
%endif

section .note.GNU-stack noalloc noexec nowrite progbits
