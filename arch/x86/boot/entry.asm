; SPDX-License-Identifier: MIT
; The multiboot2 header and the BSP's way from GRUB's 32-bit protected mode into 64-bit
; C: check the CPU, zero .bss, build a direct map of the first 64 GiB, enter long mode, call
; boot_main(magic, mbi).

bits 32

MB2_MAGIC	equ 0xe85250d6
MB2_BOOT_MAGIC	equ 0x36d76289
MB2_ARCH_I386	equ 0

PTE_P		equ 1 << 0
PTE_W		equ 1 << 1
PTE_PWT		equ 1 << 3
PTE_PCD		equ 1 << 4
PTE_PS		equ 1 << 7

DIRECT_MAP_GIB	equ 64			; RAM above this is not used (boot_main says so)
MMIO_FIRST_2M	equ 0xfec00000 >> 21	; IOAPIC, HPET, LAPIC, firmware: uncached

COM1		equ 0x3f8

extern boot_main
extern __bss_start
extern __bss_end
global _start32
global boot_pml4
global boot_stack_top
global boot_entry_tsc
global boot_bda_ebda
global boot_gdt_ptr

section .multiboot2 align=8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; information request (optional): command line, memory map, ACPI old and new RSDP
	align 8
	dw 1, 1
	dd 8 + 4 * 4
	dd 1, 6, 14, 15
	; framebuffer (optional): a linear framebuffer rather than text mode, any size and
	; depth (0: no preference; grub.cfg's gfxpayload chooses). Multiboot2 1.0, 3.1.10.
	align 8
	dw 5, 1
	dd 20
	dd 0, 0, 0
	align 8
	dw 0, 0				; end tag
	dd 8
mb2_header_end:

section .data
align 8
boot_entry_tsc:	dq 0			; TSC at the first instruction: boot_ms counts from here
mb_magic:	dd 0
mb_info:	dd 0
; The BIOS data area's word at 0x40e (the EBDA's segment), read before paging: page 0 is
; left unmapped once the direct map is on. arch/x86/acpi.c looks for the RSDP there.
boot_bda_ebda:	dw 0

; The boot GDT, also used by the BSP until arch/x86/gdt.c loads its per-cpu GDT.
align 16
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff		; 0x08: 64-bit code
	dq 0x00cf92000000ffff		; 0x10: data
boot_gdt_end:
boot_gdt_ptr:
	dw boot_gdt_end - boot_gdt - 1
	dq boot_gdt

section .text.boot32 progbits alloc exec
_start32:
	cli
	cld
	mov [mb_magic], eax
	mov [mb_info], ebx
	rdtsc
	mov [boot_entry_tsc], eax
	mov [boot_entry_tsc + 4], edx
	mov ax, [0x40e]
	mov [boot_bda_ebda], ax

	; zero .bss (page tables and the boot stack live there)
	mov edi, __bss_start
	mov ecx, __bss_end
	sub ecx, edi
	xor eax, eax
	rep stosb
	mov esp, boot_stack_top

	cmp dword [mb_magic], MB2_BOOT_MAGIC
	jne .not_multiboot2

	; long mode available? (CPUID 0x80000001 EDX bit 29)
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	jb .no_long_mode
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz .no_long_mode

	call build_page_tables

	lgdt [boot_gdt_ptr]
	mov eax, cr4
	or eax, 1 << 5			; PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax
	mov ecx, 0xc0000080		; EFER
	rdmsr
	or eax, 1 << 8			; LME
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov cr0, eax
	jmp 0x08:long_mode_entry

.not_multiboot2:
	mov esi, msg_not_mb2
	jmp fatal32
.no_long_mode:
	mov esi, msg_no_lm
	jmp fatal32

; Identity ("direct") map of 0..DIRECT_MAP_GIB with 2 MiB pages, except the first 2 MiB,
; which uses 4 KiB pages so that page 0 can stay unmapped and a NULL dereference faults.
build_page_tables:
	mov dword [boot_pml4], boot_pdpt + (PTE_P | PTE_W)
	; PDPT: one page directory per GiB
	xor ecx, ecx
.pdpt:
	mov eax, ecx
	shl eax, 12
	add eax, boot_pd + (PTE_P | PTE_W)
	mov [boot_pdpt + ecx * 8], eax
	inc ecx
	cmp ecx, DIRECT_MAP_GIB
	jb .pdpt
	; PDs: entry i maps physical i * 2 MiB (the high dword is i >> 11)
	xor ecx, ecx
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	cmp ecx, MMIO_FIRST_2M
	jb .wb
	cmp ecx, 2048
	jae .wb
	or eax, PTE_PCD | PTE_PWT
.wb:
	mov edx, ecx
	shr edx, 11
	mov [boot_pd + ecx * 8], eax
	mov [boot_pd + ecx * 8 + 4], edx
	inc ecx
	cmp ecx, DIRECT_MAP_GIB * 512
	jb .pd
	; first 2 MiB through a page table; entry 0 stays zero (not present)
	mov dword [boot_pd], boot_pt0 + (PTE_P | PTE_W)
	mov dword [boot_pd + 4], 0
	mov ecx, 1
.pt:
	mov eax, ecx
	shl eax, 12
	or eax, PTE_P | PTE_W
	mov [boot_pt0 + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jb .pt
	ret

; Print the string at esi on COM1 and halt: the only thing we can do before long mode.
fatal32:
	mov dx, COM1 + 3
	mov al, 0x80
	out dx, al
	mov dx, COM1
	mov al, 1
	out dx, al
	mov dx, COM1 + 1
	xor al, al
	out dx, al
	mov dx, COM1 + 3
	mov al, 3
	out dx, al
.next:
	lodsb
	test al, al
	jz .halt
	mov ah, al
.wait:
	mov dx, COM1 + 5
	in al, dx
	test al, 0x20
	jz .wait
	mov al, ah
	mov dx, COM1
	out dx, al
	jmp .next
.halt:
	; tell QEMU's isa-debug-exit (if present) that we failed, then stop
	mov dx, 0xf4
	mov al, 0x12
	out dx, al
.hang:
	cli
	hlt
	jmp .hang

msg_not_mb2:	db "slablab: not started by a multiboot2 loader (boot the ISO with GRUB)", 13, 10, 0
msg_no_lm:	db "slablab: this CPU has no 64-bit long mode; slablab needs x86-64", 13, 10, 0

bits 64
section .text
long_mode_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rsp, boot_stack_top
	xor ebp, ebp			; ends the frame-pointer backtrace
	mov edi, [mb_magic]
	mov esi, [mb_info]
	call boot_main
.hang:
	cli
	hlt
	jmp .hang

section .bss
alignb 4096
boot_pml4:	resb 4096
boot_pdpt:	resb 4096
boot_pt0:	resb 4096
boot_pd:	resb 4096 * DIRECT_MAP_GIB
alignb 16
boot_stack:	resb 32768
boot_stack_top:

section .note.GNU-stack noalloc noexec nowrite progbits
