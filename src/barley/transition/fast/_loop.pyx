# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Transition parsing of whole sentences in compiled code, greedy and with a beam: the fast path.

This is :func:`barley.transition.loop.parse_batch` with :class:`barley.transition.loop.FollowModel`,
sentence by sentence and without Python per transition. Everything it does has a
readable twin that is its specification and test oracle:

* configurations, ``legal``, ``apply``, ``is_terminal``, ``finalize``: the system's
  module in :mod:`barley.systems` (one ``SYS_*`` code each, below);
* the row of a configuration: :meth:`barley.features.extract.Extractor.reference_row`;
* keys, ids, scores: ``Extractor.keys``, ``FeatureIndex.ids`` and the learners'
  ``scores`` (a float32 gather and sum in the same order as scipy's CSR product, so
  scores are bit-identical);
* the choice: the first best legal class, MaltParser's forced-move rule first;
* beam search (:meth:`Program.parse_beam`): :func:`barley.transition.beam.parse_batch_beam`,
  its ties and its float64 totals included (``tests/transition/test_fast_beam.py``).

Lists are stored with the element next to the decision point *last*: the stack top,
the buffer front, λ1's head, λ2's front, the inactive stack's top. So the element
``L[i]`` of any list is ``items[len - 1 - i]`` and ``L[-1 - i]`` is ``items[i]``.
:mod:`barley.transition.fast` builds the tables this module reads (:class:`Program`).
"""

from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    #if defined(__GNUC__)
    #define BARLEY_PREFETCH(address) __builtin_prefetch(address)
    #else
    #define BARLEY_PREFETCH(address)
    #endif
    """
    void BARLEY_PREFETCH(const void* address) noexcept nogil

import numpy as np

cdef enum:
    SYS_ARC_EAGER = 0
    SYS_ARC_STANDARD = 1
    SYS_ARC_HYBRID = 2
    SYS_STACK_PROJECTIVE = 3
    SYS_SWAP = 4
    SYS_COVINGTON_NONPROJECTIVE = 5
    SYS_COVINGTON_PROJECTIVE = 6
    SYS_PLANAR = 7
    SYS_TWO_PLANAR = 8

cdef enum:
    BASE_STACK = 0
    BASE_INPUT = 1
    BASE_LAMBDA1 = 2
    BASE_LAMBDA2 = 3
    BASE_INACTIVE = 4

cdef enum:
    FN_NONE = 0
    FN_HEAD = 1
    FN_LDEP = 2
    FN_RDEP = 3
    FN_LSIB = 4
    FN_RSIB = 5
    FN_PRED = 6
    FN_SUCC = 7

cdef enum:
    VALUE_DEPREL = 0
    VALUE_LDEPS = 1
    VALUE_RDEPS = 2

cdef enum:
    MAX_MOVES = 8
    COUNT_CAP = 3
cdef float UNSEEN = -1e9
cdef float NEG_INF = -float("inf")
cdef long long DIST_BUCKET[11]
DIST_BUCKET[:] = [0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 6]


# --- configurations -----------------------------------------------------------------------

cdef struct State:
    int n
    int* stack      # the (active) stack, top last
    int sp
    int* inactive   # 2-planar's inactive stack, top last
    int ip
    int* buffer     # β, front last
    int bl
    int* lambda1    # λ1, its head i last
    int l1
    int* lambda2    # λ2, its front last
    int l2
    int* heads
    int* labels
    int* first      # leftmost and rightmost dependent of each node (-1: none)
    int* last
    int* prev       # nearest sibling to the left / right of each dependent (-1: none)
    int* next
    int* nleft      # how many dependents left / right of each node
    int* nright
    int switched
    int transitions
    int* memory     # the block the lists are in (2-planar's stacks trade places within it)


cdef int LISTS_PER_NODE = 14


cdef void point_lists(State* s, int* memory, int size) noexcept nogil:
    """``s``'s lists, of ``size`` ints each, in ``memory`` (14 ``size`` ints), in their place at the start."""
    s.memory = memory
    s.stack = memory
    s.inactive = memory + size
    s.buffer = memory + 2 * size
    s.lambda1 = memory + 3 * size
    s.lambda2 = memory + 4 * size
    s.heads = memory + 5 * size
    s.labels = memory + 6 * size
    s.first = memory + 7 * size
    s.last = memory + 8 * size
    s.prev = memory + 9 * size
    s.next = memory + 10 * size
    s.nleft = memory + 11 * size
    s.nright = memory + 12 * size


cdef void copy_state(State* copy, State* s, int* memory) noexcept nogil:
    """``s`` into ``copy``, whose lists go in ``memory`` (14 (n + 2) ints): ``State.copy``."""
    cdef int* swapped
    memcpy(memory, s.memory, LISTS_PER_NODE * (s.n + 2) * sizeof(int))
    copy[0] = s[0]
    point_lists(copy, memory, s.n + 2)
    if s.stack != s.memory:  # 2-planar's stacks have traded places (apply_move)
        swapped = copy.stack
        copy.stack = copy.inactive
        copy.inactive = swapped


cdef void init_state(State* s, int system, int n, int* memory) noexcept nogil:
    """The initial configuration of ``system`` for n words (``memory``: 14 (n + 2) ints)."""
    cdef int size = n + 2, i
    s.n = n
    point_lists(s, memory, size)
    for i in range(size):
        s.heads[i] = -1
        s.labels[i] = -1
        s.first[i] = -1
        s.last[i] = -1
        s.prev[i] = -1
        s.next[i] = -1
        s.nleft[i] = 0
        s.nright[i] = 0
    s.bl = n
    for i in range(n):
        s.buffer[i] = n - i  # front (word 1) last
    s.sp = 0
    s.ip = 0
    s.l1 = 0
    s.l2 = 0
    s.switched = 0
    s.transitions = 0
    if system == SYS_COVINGTON_NONPROJECTIVE or system == SYS_COVINGTON_PROJECTIVE:
        s.lambda1[0] = 0
        s.l1 = 1
    elif system != SYS_PLANAR and system != SYS_TWO_PLANAR:
        s.stack[0] = 0
        s.sp = 1


cdef void add_arc(State* s, int head, int dependent, int label) noexcept nogil:
    """``State.add_arc``: the arc, and ``dependent`` among ``head``'s sorted dependents."""
    cdef int before = -1, after = s.first[head]
    s.heads[dependent] = head
    s.labels[dependent] = label
    if dependent < head:
        s.nleft[head] += 1
    else:
        s.nright[head] += 1
    while after != -1 and after < dependent:
        before = after
        after = s.next[after]
    s.prev[dependent] = before
    s.next[dependent] = after
    if before == -1:
        s.first[head] = dependent
    else:
        s.next[before] = dependent
    if after == -1:
        s.last[head] = dependent
    else:
        s.prev[after] = dependent


cdef inline int tree_root(State* s, int node) noexcept nogil:
    while s.heads[node] != -1:
        node = s.heads[node]
    return node


cdef inline bint reaches(State* s, int head, int dependent) noexcept nogil:
    """``Forest.reaches``: would head → dependent close a cycle?"""
    return tree_root(s, head) == dependent


cdef inline bint can_attach_to_root(State* s, bint single_root) noexcept nogil:
    return not (single_root and s.first[0] != -1)


cdef inline int pop_front(State* s) noexcept nogil:
    s.bl -= 1
    return s.buffer[s.bl]


cdef void legal_without_cycles(State* s, int* items, int length, bint single_root, bint* legal) noexcept nogil:
    """LEFT-ARC, RIGHT-ARC, NO-ARC or REDUCE, SHIFT between i, the last of ``items``, and
    j, β's front, where an arc needs a word without a head and no cycle: the planar
    systems' Figure 3 (Gómez-Rodríguez & Nivre 2010) on the (active) stack, and
    Covington's non-projective system (Nivre 2008 Figure 8) on λ1. Node 0 is never on
    a planar stack, so the conditions on i = 0 only ever apply to Covington's."""
    cdef int i, j
    if not (length and s.bl):
        legal[0] = 0
        legal[1] = 0
        legal[2] = length > 0
        legal[3] = s.bl > 0
        return
    i = items[length - 1]
    j = s.buffer[s.bl - 1]
    legal[0] = i != 0 and s.heads[i] == -1 and not reaches(s, j, i)
    legal[1] = s.heads[j] == -1 and not reaches(s, i, j) and (i != 0 or can_attach_to_root(s, single_root))
    legal[2] = 1
    legal[3] = 1


cdef void legal_moves(int system, bint single_root, State* s, bint* legal) noexcept nogil:
    """Per move of ``system``: its preconditions (each system's ``legal``)."""
    cdef int i = s.stack[s.sp - 1] if s.sp else -1  # the stack's top
    cdef int j = s.buffer[s.bl - 1] if s.bl else -1  # β's front
    cdef bint pair = s.sp > 0 and s.bl > 0
    if system == SYS_ARC_EAGER:
        legal[0] = pair and i != 0 and s.heads[i] == -1
        legal[1] = pair and s.heads[j] == -1 and (i != 0 or can_attach_to_root(s, single_root))
        legal[2] = s.sp > 0 and i != 0 and s.heads[i] != -1
        legal[3] = s.bl > 0
    elif system == SYS_ARC_STANDARD:
        legal[0] = pair and i != 0 and s.heads[i] == -1
        legal[1] = pair and s.heads[j] == -1 and (
            i != 0 or (can_attach_to_root(s, single_root) and (not single_root or s.bl == 1)))
        legal[2] = s.bl > 0
    elif system == SYS_ARC_HYBRID:
        legal[0] = s.bl > 0
        legal[1] = s.bl > 0 and i > 0
        legal[2] = s.sp >= 2 and (s.stack[s.sp - 2] != 0 or (
            can_attach_to_root(s, single_root) and (not single_root or s.bl == 0)))
    elif system == SYS_STACK_PROJECTIVE or system == SYS_SWAP:
        pair = s.sp >= 2
        if pair:
            i = s.stack[s.sp - 2]
        legal[0] = pair and i != 0
        legal[1] = pair and (i != 0 or (can_attach_to_root(s, single_root) and (not single_root or s.bl == 0)))
        legal[2] = s.bl > 0
        if system == SYS_SWAP:
            legal[3] = pair and 0 < i and i < s.stack[s.sp - 1]
    elif system == SYS_COVINGTON_NONPROJECTIVE:
        legal_without_cycles(s, s.lambda1, s.l1, single_root, legal)
    elif system == SYS_COVINGTON_PROJECTIVE:  # i is λ1's last word
        i = s.lambda1[s.l1 - 1] if s.l1 else -1
        pair = s.l1 > 0 and s.bl > 0
        legal[0] = pair and i != 0 and s.heads[i] == -1
        legal[1] = pair and s.heads[j] == -1 and (i != 0 or can_attach_to_root(s, single_root))
        legal[2] = s.l1 > 0 and s.heads[i] != -1
        legal[3] = s.bl > 0
    elif system == SYS_PLANAR:
        legal_without_cycles(s, s.stack, s.sp, single_root, legal)
    elif system == SYS_TWO_PLANAR:
        legal_without_cycles(s, s.stack, s.sp, single_root, legal)
        legal[4] = s.bl > 0 and not s.switched


cdef enum:
    GONE = 0
    ON_STACK = 1
    IN_BUFFER = 2


cdef inline int place(int* where, long long node) noexcept nogil:
    return GONE if node < 0 else where[node]


cdef void keep_given_arcs(int system, bint single_root, State* s, const long long* given,
                          const long long* given_label, int* where, bint* legal, int* label_of) noexcept nogil:
    """For arc-eager and arc-hybrid: the legal moves narrowed to those of dynamic-oracle cost 0
    against the given arcs (``given[d]``: d's given head, -1 if none), the costs of
    ``move_costs`` in ``barley/systems/arc_eager.py`` and ``arc_hybrid.py`` with partial gold
    (:class:`barley.constraints.TransitionGuide`, the reference); ``label_of[m]``: the label a
    labeled move m must take (the given label of the arc it builds), -1 if any."""
    cdef int i = s.stack[s.sp - 1] if s.sp else -1  # arc-eager's i, arc-hybrid's s0
    cdef int j = s.buffer[s.bl - 1] if s.bl else -1  # β's front
    cdef int s1 = s.stack[s.sp - 2] if s.sp >= 2 else -1
    cdef int d, k, of_i_in_buffer = 0, of_j_on_stack = 0, roots_in_buffer = 0
    cdef long long h
    cdef bint from_stack
    for k in range(s.n + 2):
        where[k] = GONE
    for k in range(s.sp):
        where[s.stack[k]] = ON_STACK
    for k in range(s.bl):
        where[s.buffer[k]] = IN_BUFFER
    for k in range(MAX_MOVES):
        label_of[k] = -1
    for d in range(1, s.n + 1):
        h = given[d]
        if h < 0:
            continue
        if h == i and where[d] == IN_BUFFER:
            of_i_in_buffer += 1
        if h == j and where[d] == ON_STACK and (system == SYS_ARC_HYBRID or s.heads[d] == -1):
            of_j_on_stack += 1
        if h == 0 and where[d] == IN_BUFFER and d != j:
            roots_in_buffer += 1
    if system == SYS_ARC_EAGER:  # LEFT-ARC, RIGHT-ARC, REDUCE, SHIFT
        from_stack = j >= 0 and place(where, given[j]) == ON_STACK and (
            given[j] != 0 or can_attach_to_root(s, single_root))
        if legal[0]:
            h = given[i]
            legal[0] = of_i_in_buffer == 0 and not (h >= 0 and h != j and where[h] == IN_BUFFER)
            label_of[0] = given_label[i] if h == j else -1
        if legal[1]:
            h = given[j]
            legal[1] = (of_j_on_stack == 0 and not (h >= 0 and h != i and (where[h] == IN_BUFFER or from_stack))
                        and not (single_root and i == 0 and roots_in_buffer > 0))
            label_of[1] = given_label[j] if h == i else -1
        if legal[2]:
            legal[2] = of_i_in_buffer == 0
        if legal[3]:
            legal[3] = of_j_on_stack == 0 and not from_stack
    elif system == SYS_ARC_HYBRID:  # SHIFT, LEFT-ARC, RIGHT-ARC
        if legal[0]:
            h = given[j]
            legal[0] = of_j_on_stack == 0 and not (h >= 0 and h != i and where[h] == ON_STACK)
        h = given[i] if i >= 0 else -1
        if legal[1]:
            legal[1] = of_i_in_buffer == 0 and not (h >= 0 and h != j and (where[h] == IN_BUFFER or h == s1))
            label_of[1] = given_label[i] if h == j else -1
        if legal[2]:
            legal[2] = of_i_in_buffer == 0 and place(where, h) != IN_BUFFER
            label_of[2] = given_label[i] if h == s1 else -1


cdef bint is_terminal(int system, bint single_root, State* s) noexcept nogil:
    cdef int i
    if system == SYS_ARC_EAGER:  # β empty and no REDUCE possible
        if s.bl:
            return 0
        if not s.sp:
            return 1
        i = s.stack[s.sp - 1]
        return not (i != 0 and s.heads[i] != -1)
    if system == SYS_ARC_HYBRID or system == SYS_STACK_PROJECTIVE or system == SYS_SWAP:
        return s.bl == 0 and s.sp == 1
    return s.bl == 0


cdef void no_arc_or_shift(State* s, int move) noexcept nogil:
    """Covington's NO-ARC (2) and SHIFT (3)."""
    cdef int k
    if move == 2:
        s.l1 -= 1
        s.lambda2[s.l2] = s.lambda1[s.l1]
        s.l2 += 1
    else:
        k = s.l2 - 1
        while k >= 0:  # λ1.extend(λ2), λ2 from its front
            s.lambda1[s.l1] = s.lambda2[k]
            s.l1 += 1
            k -= 1
        s.l2 = 0
        s.lambda1[s.l1] = pop_front(s)
        s.l1 += 1


cdef void apply_move(int system, State* s, int move, int label) noexcept nogil:
    """One transition of ``system`` (each system's ``apply``), preconditions assumed."""
    cdef int i, j
    cdef int* swap_list
    if system == SYS_ARC_EAGER:
        if move == 0:
            s.sp -= 1
            add_arc(s, s.buffer[s.bl - 1], s.stack[s.sp], label)
        elif move == 1:
            j = pop_front(s)
            add_arc(s, s.stack[s.sp - 1], j, label)
            s.stack[s.sp] = j
            s.sp += 1
        elif move == 2:
            s.sp -= 1
        else:
            s.stack[s.sp] = pop_front(s)
            s.sp += 1
    elif system == SYS_ARC_STANDARD:
        if move == 0:
            s.sp -= 1
            add_arc(s, s.buffer[s.bl - 1], s.stack[s.sp], label)
        elif move == 1:
            s.sp -= 1
            i = s.stack[s.sp]
            add_arc(s, i, s.buffer[s.bl - 1], label)
            s.buffer[s.bl - 1] = i
        else:
            s.stack[s.sp] = pop_front(s)
            s.sp += 1
    elif system == SYS_ARC_HYBRID:
        if move == 0:
            s.stack[s.sp] = pop_front(s)
            s.sp += 1
        elif move == 1:
            s.sp -= 1
            add_arc(s, s.buffer[s.bl - 1], s.stack[s.sp], label)
        else:
            s.sp -= 1
            add_arc(s, s.stack[s.sp - 1], s.stack[s.sp], label)
    elif system == SYS_STACK_PROJECTIVE or system == SYS_SWAP:
        if move == 0:
            j = s.stack[s.sp - 1]
            add_arc(s, j, s.stack[s.sp - 2], label)
            s.sp -= 1
            s.stack[s.sp - 1] = j
        elif move == 1:
            add_arc(s, s.stack[s.sp - 2], s.stack[s.sp - 1], label)
            s.sp -= 1
        elif move == 2:
            s.stack[s.sp] = pop_front(s)
            s.sp += 1
        else:  # SWAP: σ|i|j ⇒ σ|j, and i back to the front of β
            j = s.stack[s.sp - 1]
            s.buffer[s.bl] = s.stack[s.sp - 2]
            s.bl += 1
            s.sp -= 1
            s.stack[s.sp - 1] = j
    elif system == SYS_COVINGTON_NONPROJECTIVE:
        if move == 0 or move == 1:
            s.l1 -= 1
            i = s.lambda1[s.l1]
            if move == 0:
                add_arc(s, s.buffer[s.bl - 1], i, label)
            else:
                add_arc(s, i, s.buffer[s.bl - 1], label)
            s.lambda2[s.l2] = i
            s.l2 += 1
        else:
            no_arc_or_shift(s, move)
    elif system == SYS_COVINGTON_PROJECTIVE:
        if move == 0:
            s.l1 -= 1
            add_arc(s, s.buffer[s.bl - 1], s.lambda1[s.l1], label)
            s.l2 = 0
        elif move == 1:
            j = pop_front(s)
            add_arc(s, s.lambda1[s.l1 - 1], j, label)
            s.lambda1[s.l1] = j
            s.l1 += 1
            s.l2 = 0
        else:
            no_arc_or_shift(s, move)
    elif system == SYS_PLANAR or system == SYS_TWO_PLANAR:
        if move == 0:
            add_arc(s, s.buffer[s.bl - 1], s.stack[s.sp - 1], label)
        elif move == 1:
            add_arc(s, s.stack[s.sp - 1], s.buffer[s.bl - 1], label)
        elif move == 2:
            s.sp -= 1
        elif move == 3:
            j = pop_front(s)
            s.stack[s.sp] = j
            s.sp += 1
            if system == SYS_TWO_PLANAR:
                s.inactive[s.ip] = j
                s.ip += 1
        else:  # SWITCH: the inactive stack becomes the active one
            swap_list = s.stack
            s.stack = s.inactive
            s.inactive = swap_list
            i = s.sp
            s.sp = s.ip
            s.ip = i
        s.switched = move == 4
    s.transitions += 1


cdef void finalize(State* s, bint single_root, int root_label) noexcept nogil:
    """``TransitionSystem.finalize``: words without a head go to 0 (one root word with
    ``single_root``, the others under it)."""
    cdef int node
    for node in range(1, s.n + 1):
        if s.heads[node] != -1:
            continue
        if single_root and s.first[0] != -1:
            add_arc(s, s.first[0], node, root_label)
        else:
            add_arc(s, 0, node, root_label)


# --- reading a configuration: the feature model's row ------------------------------------

cdef struct Reader:
    # One compiled feature model (``Extractor``): its addresses, its row, its key plan.
    int n_addresses
    int* base
    int* index          # counted from the decision point, or from the far end when far
    int* far
    int* inner          # the address a function applies to (-1: a list element)
    int* function
    int n_positions     # row: positions of these addresses, then the state values
    int* position_address
    int n_values
    int* value_kind
    int* value_address
    int n_atoms
    int n_token
    int* token_atom
    int* token_column
    int* token_attribute
    int max_attribute   # the largest of token_attribute (-1: none): a token table must have more columns
    int n_value_atoms
    int* value_atom
    int* value_column
    int n_dist
    int* dist_atom
    int* dist_a
    int* dist_b
    int n_scalar
    int* scalar_atoms        # n_scalar × 3 (n_atoms: the constant 0)
    long long* scalar_multipliers
    long long* scalar_template
    int n_feats
    long long* feats_template
    int* feats_atoms         # n_feats × 3
    long long* feats_multipliers
    int* feats_column
    long long* feats_multiplier


cdef inline int list_element(State* s, int base, int index, bint far) noexcept nogil:
    cdef int* items
    cdef int length
    if base == BASE_STACK:
        items, length = s.stack, s.sp
    elif base == BASE_INPUT:
        items, length = s.buffer, s.bl
    elif base == BASE_LAMBDA1:
        items, length = s.lambda1, s.l1
    elif base == BASE_LAMBDA2:
        items, length = s.lambda2, s.l2
    else:
        items, length = s.inactive, s.ip
    if index >= length:
        return -1
    return items[index] if far else items[length - 1 - index]


cdef void read_row(Reader* r, State* s, int* nodes, long long* row) noexcept nogil:
    """``Extractor.row``: positions of the model's addresses (-1: none), then state values."""
    cdef int a, node, count
    for a in range(r.n_addresses):
        if r.inner[a] < 0:
            nodes[a] = list_element(s, r.base[a], r.index[a], r.far[a])
            continue
        node = nodes[r.inner[a]]
        if node < 0:
            nodes[a] = -1
            continue
        if r.function[a] == FN_HEAD:
            nodes[a] = s.heads[node]
        elif r.function[a] == FN_LDEP:
            nodes[a] = s.first[node]
        elif r.function[a] == FN_RDEP:
            nodes[a] = s.last[node]
        elif r.function[a] == FN_LSIB:
            nodes[a] = s.prev[node] if s.heads[node] >= 0 else -1
        elif r.function[a] == FN_RSIB:
            nodes[a] = s.next[node] if s.heads[node] >= 0 else -1
        elif r.function[a] == FN_PRED:
            nodes[a] = node - 1 if node > 0 else -1
        else:
            nodes[a] = node + 1 if node < s.n else -1
    for a in range(r.n_positions):
        row[a] = nodes[r.position_address[a]]
    for a in range(r.n_values):
        node = nodes[r.value_address[a]]
        if node < 0:
            row[r.n_positions + a] = 0
        elif r.value_kind[a] == VALUE_DEPREL:
            row[r.n_positions + a] = s.labels[node] + 2
        else:
            count = s.nleft[node] if r.value_kind[a] == VALUE_LDEPS else s.nright[node]
            row[r.n_positions + a] = (count if count < COUNT_CAP else COUNT_CAP) + 1


cdef void atom_values(Reader* r, long long* row, long long* values, const long long* tokens, int n_attributes,
                      long long sentence_row, long long none_row) noexcept nogil:
    """``Extractor.keys``' values: one per atom (tokens, state values, distances), then 0."""
    cdef int k
    cdef long long position, a, b, distance, bucket
    for k in range(r.n_token):
        position = row[r.token_column[k]]
        position = sentence_row + position if position >= 0 else none_row
        values[r.token_atom[k]] = tokens[position * n_attributes + r.token_attribute[k]]
    for k in range(r.n_value_atoms):
        values[r.value_atom[k]] = row[r.value_column[k]]
    for k in range(r.n_dist):
        a = row[r.dist_a[k]]
        b = row[r.dist_b[k]]
        if a < 0 or b < 0:
            values[r.dist_atom[k]] = 0
            continue
        distance = b - a
        bucket = DIST_BUCKET[(distance if distance >= 0 else -distance) if -10 < distance < 10 else 10]
        values[r.dist_atom[k]] = 1 + bucket if distance >= 0 else 8 + bucket
    values[r.n_atoms] = 0


cdef inline long long scalar_key(Reader* r, long long* values, int t) noexcept nogil:
    cdef int* atoms = r.scalar_atoms + 3 * t
    cdef long long* multipliers = r.scalar_multipliers + 3 * t
    return (r.scalar_template[t] + values[atoms[0]] * multipliers[0] + values[atoms[1]] * multipliers[1]
            + values[atoms[2]] * multipliers[2])


# --- scoring: feature ids, weights, the best legal class ---------------------------------

cdef struct Index:
    # ``FeatureIndex``: sorted keys, and direct tables for the templates with small spaces.
    long long size
    long long* keys
    long long template_count
    long long* direct_offset   # per template: where its table starts (-1: binary search)
    int* direct


cdef inline long long feature_id(Index* index, long long key, long long template) noexcept nogil:
    cdef long long low, high, middle, offset = index.direct_offset[template]
    if offset >= 0:
        return index.direct[offset + key // index.template_count]
    if index.size == 0:
        return 0
    low = 0
    high = index.size
    while low < high:  # numpy.searchsorted(keys, key), side="left"
        middle = (low + high) >> 1
        if index.keys[middle] < key:
            low = middle + 1
        else:
            high = middle
    if low > index.size - 1:
        low = index.size - 1
    return low if index.keys[low] == key else index.size


cdef struct Entry:
    int column
    float value


cdef struct Scorer:
    # A linear scorer: ``weights[ids].sum() + bias``, one column per class it saw
    # (``columns`` of ``width``; the others score UNSEEN), or a split learner's stacked
    # parts (``part_rows`` maps (part, feature) to a weight row, one intercept row per part).
    # The weight rows are kept sparse (most weights are zero, and adding a zero changes
    # no sum but for the sign of a zero): row r's non-zero weights are
    # ``entries[starts[r]:starts[r + 1]]``.
    int n_classes
    int width
    long long* starts
    Entry* entries
    float* bias
    long long* columns
    bint split
    long long n_parts
    long long* part_values      # split value of each part, part 0 the default
    int* part_rows              # n_parts × (size + 1)
    long long row_count         # size + 1


cdef inline long long part_of(Scorer* scorer, long long value) noexcept nogil:
    """``SplitLearner._part_of``: the part whose value is ``value``, else 0."""
    cdef long long low = 1, high = scorer.n_parts, middle
    while low < high:
        middle = (low + high) >> 1
        if scorer.part_values[middle] < value:
            low = middle + 1
        else:
            high = middle
    if low < scorer.n_parts and scorer.part_values[low] == value:
        return low
    return 0


cdef int feature_keys(Reader* r, long long* row, long long* values, const long long* feats, int feats_width,
                      long long sentence_row, long long none_row, long long* keys, long long* templates) noexcept nogil:
    """``Extractor.keys`` of one configuration: its keys and their templates, in the order of
    the reference's feature slots (scalar templates, then each FEATS template's atoms),
    FEATS padding left out. Returns how many."""
    cdef int t, k, count = 0
    cdef long long base, position, value
    cdef long long* multipliers
    cdef int* atoms
    for t in range(r.n_scalar):
        keys[count] = scalar_key(r, values, t)
        templates[count] = r.scalar_template[t]
        count += 1
    for t in range(r.n_feats):
        atoms = r.feats_atoms + 3 * t
        multipliers = r.feats_multipliers + 3 * t
        base = (values[atoms[0]] * multipliers[0] + values[atoms[1]] * multipliers[1]
                + values[atoms[2]] * multipliers[2]) + r.feats_template[t]
        position = row[r.feats_column[t]]
        position = sentence_row + position if position >= 0 else none_row
        for k in range(feats_width):
            value = feats[position * feats_width + k]
            if value >= 0:
                keys[count] = base + value * r.feats_multiplier[t]
                templates[count] = r.feats_template[t]
                count += 1
    return count


cdef void score(Index* index, Scorer* scorer, long long* keys, long long* templates, int count, long long part,
                long long* spans, float* total, float* scores) noexcept nogil:
    """Scores of every class for one configuration's feature ``keys``.

    The weight rows are added in the order of the keys, as scipy's CSR product adds
    them; absent and unseen features (id ``size``) add the zero row and are skipped. In
    passes (ids, then rows, then sums), so that the memory reads of one pass, each
    independent of the others, overlap.
    """
    cdef int i, used = 0, c
    cdef long long id_, e, end
    cdef int* rows = NULL
    cdef float* intercepts
    cdef Entry* entry
    if scorer.split:
        rows = scorer.part_rows + part * scorer.row_count
    for i in range(count):
        keys[i] = feature_id(index, keys[i], templates[i])
    for i in range(count):
        id_ = keys[i]
        if id_ != index.size:
            keys[used] = rows[id_] if rows != NULL else id_
            used += 1
    for i in range(used):
        spans[2 * i] = scorer.starts[keys[i]]
        spans[2 * i + 1] = scorer.starts[keys[i] + 1]
        BARLEY_PREFETCH(scorer.entries + spans[2 * i])
    memset(total, 0, scorer.width * sizeof(float))
    for i in range(used):
        end = spans[2 * i + 1]
        for e in range(spans[2 * i], end):
            entry = scorer.entries + e
            total[entry.column] += entry.value
    if scorer.split:
        intercepts = scorer.bias + part * scorer.width
        for c in range(scorer.width):
            scores[c] = total[c] + intercepts[c]
        return
    for c in range(scorer.n_classes):
        scores[c] = UNSEEN
    for c in range(scorer.width):
        scores[scorer.columns[c]] = total[c] + scorer.bias[c]


def sparse_rows(const float[:, ::1] weights):
    """The non-zero entries of ``weights``, row by row: ``(starts, entries)``, entries
    as pairs (column, value) of int32 and float32 (two passes in C, without numpy's
    index arrays of every non-zero)."""
    cdef Py_ssize_t rows = weights.shape[0], width = weights.shape[1], r, c, e = 0
    starts = np.zeros(rows + 1, dtype=np.int64)
    cdef long long[::1] start = starts
    for r in range(rows):
        for c in range(width):
            e += weights[r, c] != 0
        start[r + 1] = e
    entries = np.empty(2 * e, dtype=np.int32)
    cdef Entry* entry = <Entry*> <Py_ssize_t> entries.ctypes.data
    e = 0
    for r in range(rows):
        for c in range(width):
            if weights[r, c] != 0:
                entry[e].column = c
                entry[e].value = weights[r, c]
                e += 1
    return starts, entries


# --- the loop ------------------------------------------------------------------------------

def checked(str name, values, dtype, Py_ssize_t length=-1, low=None, high=None):
    """``values`` as a contiguous 1-D array of ``dtype``, checked first: numbers of ``dtype``'s kind
    (ints for an int type, floats for a float type), ``length`` of them (-1: any), each in
    ``[low, high)`` and in ``dtype``'s range (so that the conversion wraps nothing). ``name``
    names the table in the ValueError."""
    given = np.asarray(values)
    target = np.dtype(dtype)
    if given.size and given.dtype.kind not in ("f" if target.kind == "f" else "iub"):
        raise ValueError(f"{name} holds {given.dtype} values, not {target}")
    if length >= 0 and given.size != length:
        raise ValueError(f"{name} has {given.size} values, not {length}")
    if given.size and target.kind != "f":
        bounds = np.iinfo(target)
        smallest = bounds.min if low is None else max(low, bounds.min)
        largest = bounds.max + 1 if high is None else min(high, bounds.max + 1)
        if int(given.min()) < smallest or int(given.max()) >= largest:
            raise ValueError(f"{name} holds values outside [{smallest}, {largest}): "
                             f"from {int(given.min())} to {int(given.max())}")
    return np.ascontiguousarray(given, dtype=target).ravel()


cdef struct Workspace:
    # what scoring one configuration needs (Program._open): the batch's token table and buffers
    const long long* tokens
    int n_attributes
    const long long* feats
    int feats_width
    long long none_row
    int longest
    int* memory
    int* nodes
    long long* row
    long long* split_row
    long long* values
    long long* split_values
    float* total
    long long* keys
    long long* templates
    long long* spans
    float* scores
    int* where


cdef inline int offer(double* totals, int* items, int* moves, int* labels, int count, int width, double total,
                      int item, int move, int label) noexcept nogil:
    """A beam's candidate among the ``count`` best so far (best first, at most ``width``): it goes
    after every one as good (the reference's stable sort: ties to the earlier candidate); the new count."""
    cdef int place = count, j
    while place > 0 and totals[place - 1] < total:
        place -= 1
    if place >= width:
        return count
    for j in range(min(count, width - 1), place, -1):
        totals[j], items[j], moves[j], labels[j] = totals[j - 1], items[j - 1], moves[j - 1], labels[j - 1]
    totals[place], items[place], moves[place], labels[place] = total, item, move, label
    return min(count + 1, width)


cdef class Program:
    """What the compiled loop reads of one parser; built by :mod:`barley.transition.fast` from its
    system, feature model(s), index, learner and classes. Keeps the arrays alive.

    Every table is checked once here, before its pointer is handed to C (:func:`checked`):
    its type, its length against the others and every index against what it indexes, so
    that no model, however made, can make the loop (bounds checks off) read or write
    outside a buffer. The model's loader checked them already (:mod:`barley.model_check`);
    this is the loop's own guard, O(size) once per parser, nothing per transition. What it
    cannot see: that the token table's ids are below their vocabularies' sizes, which
    :class:`barley.features.extract.TokenTable` makes so."""

    cdef int system
    cdef bint single_root
    cdef int n_moves
    cdef bint labeled[MAX_MOVES]
    cdef int attach_base[MAX_MOVES]   # the word each move's arc attaches (TransitionSystem.attaches); -1: no arc
    cdef int attach_index[MAX_MOVES]
    cdef int n_classes
    cdef int n_labels
    cdef object arrays
    cdef Reader reader
    cdef Reader split_reader
    cdef bint has_split
    cdef Index index
    cdef Scorer scorer
    cdef int* class_move
    cdef int* class_label
    cdef int width
    cdef int split_width

    def __init__(self, int system, bint single_root, labeled, dict reader, dict split_reader, dict index,
                 dict scorer, class_moves, class_labels, int n_labels, attaches):
        cdef int m
        self.system, self.single_root, self.n_moves, self.n_labels = system, single_root, len(labeled), n_labels
        if self.n_moves > MAX_MOVES or not 0 <= system <= SYS_TWO_PLANAR:
            raise ValueError(f"system {system} with {self.n_moves} moves")
        if len(attaches) != self.n_moves:
            raise ValueError(f"{len(attaches)} attached words for {self.n_moves} moves")
        for m in range(self.n_moves):
            self.labeled[m] = labeled[m]
            self.attach_base[m], self.attach_index[m] = attaches[m]
            if not (-1 <= self.attach_base[m] <= BASE_INACTIVE and self.attach_index[m] >= 0):
                raise ValueError(f"move {m} attaches the word at {attaches[m]}")
        self.arrays = []
        self._index(index)
        self._reader(&self.reader, reader)
        self.width = self.reader.n_positions + self.reader.n_values
        self.has_split = split_reader is not None
        if self.has_split:
            self._reader(&self.split_reader, split_reader)
            self.split_width = self.split_reader.n_positions + self.split_reader.n_values
        else:
            self.split_width = 0
        self.n_classes = len(class_moves)
        if self.n_classes < 1:
            raise ValueError("no class")
        self.class_move = <int*> self._pointer("class moves", class_moves, np.int32, -1, 0, self.n_moves)
        self.class_label = <int*> self._pointer("class labels", class_labels, np.int32, self.n_classes, -1,
                                                n_labels)
        self._scorer(scorer)

    cdef void _index(self, dict index) except *:
        self.index.size = index["size"]
        self.index.template_count = index["template_count"]
        if self.index.size < 0 or self.index.template_count < 1:
            raise ValueError(f"an index of {self.index.size} keys and {self.index.template_count} templates")
        self.index.keys = <long long*> self._pointer("feature keys", index["keys"], np.int64, self.index.size)
        offsets = checked("direct table offsets", index["direct_offset"], np.int64, self.index.template_count, -1)
        spaces = checked("template spaces", index["spaces"], np.int64, self.index.template_count, 0)
        direct = index["direct"]
        if np.any((offsets >= 0) & (offsets + spaces > len(direct))):
            raise ValueError(f"a template's direct table runs past the {len(direct)} entries of the tables")
        self.index.direct_offset = <long long*> self._pointer("direct table offsets", offsets, np.int64)
        self.index.direct = <int*> self._pointer("direct tables", direct, np.int32, -1, 0, self.index.size + 1)

    cdef void _scorer(self, dict scorer) except *:
        cdef Py_ssize_t rows, n_parts = scorer["n_parts"]
        self.scorer.n_classes = scorer["n_classes"]
        self.scorer.width = scorer["width"]
        self.scorer.split = scorer["split"]
        self.scorer.n_parts = n_parts
        self.scorer.row_count = self.index.size + 1
        if self.scorer.n_classes != self.n_classes or not 0 <= self.scorer.width <= self.n_classes \
                or (self.scorer.split and self.scorer.width != self.n_classes):
            raise ValueError(f"a scorer of {self.scorer.width} columns and {self.scorer.n_classes} classes for "
                             f"{self.n_classes} classes")
        # a loaded linear model hands its stored rows over; otherwise they are read off the matrix
        starts, entries = scorer.get("sparse") or sparse_rows(np.ascontiguousarray(scorer["weights"],
                                                                                    dtype=np.float32))
        rows = len(starts) - 1
        if self.scorer.split:  # part p's features map to rows of the stacked weights
            self.scorer.part_values = <long long*> self._pointer("split values", scorer["part_values"], np.int64,
                                                                 n_parts)
            self.scorer.part_rows = <int*> self._pointer("split rows", scorer["part_rows"], np.int32,
                                                         n_parts * self.scorer.row_count, 0, rows)
            self.scorer.bias = <float*> self._pointer("split intercepts", scorer["bias"], np.float32,
                                                      n_parts * self.scorer.width)
            if n_parts < 1 or np.any(np.diff(np.asarray(scorer["part_values"])) <= 0):
                raise ValueError("split values not increasing")
        else:  # feature f's row is f
            self.scorer.part_values = <long long*> self._pointer("split values", [], np.int64)
            self.scorer.part_rows = <int*> self._pointer("split rows", [], np.int32)
            self.scorer.bias = <float*> self._pointer("bias", scorer["bias"], np.float32, self.scorer.width)
            self.scorer.columns = <long long*> self._pointer("class columns", scorer["columns"], np.int64,
                                                             self.scorer.width, 0, self.n_classes)
            if rows != self.scorer.row_count:
                raise ValueError(f"{rows} weight rows for {self.index.size} features")
        starts = checked("weight row starts", starts, np.int64, rows + 1, 0, len(entries) // 2 + 1)
        if starts[0] != 0 or starts[rows] != len(entries) // 2 or np.any(np.diff(starts) < 0):
            raise ValueError("weight row starts that do not cut the weights in rows")
        self.scorer.starts = <long long*> self._pointer("weight row starts", starts, np.int64)
        entries = checked("weights", entries, np.int32)
        checked("weight columns", entries[0::2], np.int32, len(entries) // 2, 0, self.scorer.width)
        self.scorer.entries = <Entry*> self._pointer("weights", entries, np.int32)

    cdef void* _pointer(self, str name, values, dtype, Py_ssize_t length=-1, low=None, high=None) except NULL:
        """A C pointer to the :func:`checked` ``values`` (at least one element), kept alive."""
        array = checked(name, values, dtype, length, low, high)
        if array.size == 0:
            array = np.zeros(1, dtype=dtype)
        self.arrays.append(array)
        cdef Py_ssize_t address = array.ctypes.data
        return <void*> address

    cdef void _reader(self, Reader* r, dict spec) except *:
        """A feature model's tables, each index checked against what it indexes (an address's inner
        address comes before it: it is read first)."""
        cdef int n, atoms, templates = self.index.template_count
        n = r.n_addresses = len(spec["base"])
        r.base = <int*> self._pointer("address bases", spec["base"], np.int32, n, 0, BASE_INACTIVE + 1)
        r.index = <int*> self._pointer("address indexes", spec["index"], np.int32, n, 0)
        r.far = <int*> self._pointer("address ends", spec["far"], np.int32, n, 0, 2)
        inner = checked("inner addresses", spec["inner"], np.int32, n, -1, n)
        if np.any(inner >= np.arange(n)):
            raise ValueError("an address read before its inner address")
        r.inner = <int*> self._pointer("inner addresses", inner, np.int32)
        r.function = <int*> self._pointer("address functions", spec["function"], np.int32, n, 0, FN_SUCC + 1)
        r.n_positions = len(spec["position_address"])
        r.position_address = <int*> self._pointer("position addresses", spec["position_address"], np.int32, -1,
                                                   0, n)
        r.n_values = len(spec["value_kind"])
        r.value_kind = <int*> self._pointer("value kinds", spec["value_kind"], np.int32, -1, 0, VALUE_RDEPS + 1)
        r.value_address = <int*> self._pointer("value addresses", spec["value_address"], np.int32, r.n_values, 0, n)
        atoms = r.n_atoms = spec["n_atoms"]
        width = r.n_positions + r.n_values
        r.n_token = len(spec["token_atom"])
        r.token_atom = <int*> self._pointer("token atoms", spec["token_atom"], np.int32, -1, 0, atoms)
        r.token_column = <int*> self._pointer("token columns", spec["token_column"], np.int32, r.n_token, 0,
                                              r.n_positions)
        r.token_attribute = <int*> self._pointer("token attributes", spec["token_attribute"], np.int32, r.n_token,
                                                 0)
        r.max_attribute = max(spec["token_attribute"], default=-1)
        r.n_value_atoms = len(spec["value_atom"])
        r.value_atom = <int*> self._pointer("value atoms", spec["value_atom"], np.int32, -1, 0, atoms)
        r.value_column = <int*> self._pointer("value columns", spec["value_column"], np.int32, r.n_value_atoms, 0,
                                              width)
        r.n_dist = len(spec["dist_atom"])
        r.dist_atom = <int*> self._pointer("distance atoms", spec["dist_atom"], np.int32, -1, 0, atoms)
        r.dist_a = <int*> self._pointer("distance columns", spec["dist_a"], np.int32, r.n_dist, 0, r.n_positions)
        r.dist_b = <int*> self._pointer("distance columns", spec["dist_b"], np.int32, r.n_dist, 0, r.n_positions)
        r.n_scalar = len(spec["scalar_template"])
        r.scalar_atoms = <int*> self._pointer("scalar atoms", spec["scalar_atoms"], np.int32, 3 * r.n_scalar, 0,
                                              atoms + 1)
        r.scalar_multipliers = <long long*> self._pointer("scalar multipliers", spec["scalar_multipliers"],
                                                          np.int64, 3 * r.n_scalar)
        r.scalar_template = <long long*> self._pointer("scalar templates", spec["scalar_template"], np.int64, -1,
                                                       0, templates)
        r.n_feats = len(spec["feats_template"])
        r.feats_template = <long long*> self._pointer("FEATS templates", spec["feats_template"], np.int64, -1, 0,
                                                      templates)
        r.feats_atoms = <int*> self._pointer("FEATS atoms", spec["feats_atoms"], np.int32, 3 * r.n_feats, 0,
                                             atoms + 1)
        r.feats_multipliers = <long long*> self._pointer("FEATS multipliers", spec["feats_multipliers"], np.int64,
                                                         3 * r.n_feats)
        r.feats_column = <int*> self._pointer("FEATS columns", spec["feats_column"], np.int32, r.n_feats, 0,
                                              r.n_positions)
        r.feats_multiplier = <long long*> self._pointer("FEATS multipliers", spec["feats_multiplier"], np.int64,
                                                        r.n_feats)

    cdef void _record_step(self, State* s, bint* legal, float* scores, int move, int best, long long sentence_row,
                           bint kept, long long step, float[:, ::1] step_moves, long long[::1] step_chosen,
                           long long[:, ::1] step_candidates, float[:, ::1] arc_scores,
                           long long[::1] arc_class) noexcept:
        """One scored step for confidence (see :meth:`parse`): the step itself if ``kept`` (room
        left), and the class scores at the row of the word the move taken attaches, if any."""
        cdef int m, c, dependent
        cdef long long row
        if kept:
            for m in range(self.n_moves):
                step_moves[step, m] = NEG_INF
                step_candidates[step, m] = -1
                if legal[m] and self.attach_base[m] >= 0:
                    dependent = list_element(s, self.attach_base[m], self.attach_index[m], False)
                    if dependent >= 0:
                        step_candidates[step, m] = sentence_row + dependent
            for c in range(self.n_classes):
                m = self.class_move[c]
                if legal[m] and scores[c] > step_moves[step, m]:
                    step_moves[step, m] = scores[c]
            step_chosen[step] = move
        if self.attach_base[move] >= 0:
            dependent = list_element(s, self.attach_base[move], self.attach_index[move], False)
            row = sentence_row + dependent
            for c in range(self.n_classes):
                arc_scores[row, c] = scores[c] if legal[self.class_move[c]] else NEG_INF
            arc_class[row] = best

    cdef int _open(self, Workspace* w, const long long[:, ::1] tokens, const long long[:, ::1] feats,
                   const long long[::1] offsets, bint one_state) except -1:
        """``w``'s buffers for the sentences of ``offsets`` (``memory`` for one configuration if
        ``one_state``); :meth:`_close` frees them, opened or not."""
        cdef Py_ssize_t k
        cdef int n, most_keys
        memset(w, 0, sizeof(Workspace))
        w.n_attributes, w.feats_width = tokens.shape[1], feats.shape[1]
        w.tokens = &tokens[0, 0]
        w.feats = &feats[0, 0] if w.feats_width > 0 else NULL
        w.none_row = tokens.shape[0] - 1
        for k in range(offsets.shape[0] - 1):
            n = <int> (offsets[k + 1] - offsets[k] - 1)
            if n > w.longest:
                w.longest = n
        most_keys = self.reader.n_scalar + self.reader.n_feats * w.feats_width + 1
        w.nodes = <int*> malloc((self.reader.n_addresses + self.split_reader.n_addresses * self.has_split + 1)
                                * sizeof(int))
        w.row = <long long*> malloc((self.width + self.split_width + 2) * sizeof(long long))
        w.split_row = w.row + self.width + 1
        w.values = <long long*> malloc((self.reader.n_atoms + self.split_reader.n_atoms * self.has_split + 2)
                                       * sizeof(long long))
        w.split_values = w.values + self.reader.n_atoms + 1
        w.total = <float*> malloc((self.scorer.width + 1) * sizeof(float))
        w.keys = <long long*> malloc(4 * most_keys * sizeof(long long))
        w.templates = w.keys + most_keys
        w.spans = w.keys + 2 * most_keys
        w.scores = <float*> malloc((self.n_classes + 1) * sizeof(float))
        w.where = <int*> malloc((w.longest + 2) * sizeof(int))
        if one_state:
            w.memory = <int*> malloc(LISTS_PER_NODE * (w.longest + 2) * sizeof(int))
        if not (w.nodes and w.row and w.values and w.total and w.scores and w.keys and w.where
                and (w.memory or not one_state)):
            raise MemoryError()
        return 0

    cdef void _close(self, Workspace* w) noexcept:
        free(w.memory)
        free(w.nodes)
        free(w.row)
        free(w.values)
        free(w.total)
        free(w.keys)
        free(w.scores)
        free(w.where)

    cdef int _forced(self, bint* legal) noexcept nogil:
        """The move of MaltParser's rule: the only legal one when it takes no label; else -1."""
        cdef int m, legal_count = 0, only = -1
        for m in range(self.n_moves):
            if legal[m]:
                legal_count += 1
                only = m
        return only if legal_count == 1 and not self.labeled[only] else -1

    cdef void _score(self, Workspace* w, State* s, long long sentence_row) noexcept nogil:
        """Every class's score of ``s`` (of the sentence at ``sentence_row``) into ``w.scores``; its row
        in ``w.row``."""
        cdef long long part = 0
        cdef int key_count
        read_row(&self.reader, s, w.nodes, w.row)
        atom_values(&self.reader, w.row, w.values, w.tokens, w.n_attributes, sentence_row, w.none_row)
        if self.has_split:
            read_row(&self.split_reader, s, w.nodes, w.split_row)
            atom_values(&self.split_reader, w.split_row, w.split_values, w.tokens, w.n_attributes, sentence_row,
                        w.none_row)
            part = part_of(&self.scorer, scalar_key(&self.split_reader, w.split_values, 0))
        key_count = feature_keys(&self.reader, w.row, w.values, w.feats, w.feats_width, sentence_row, w.none_row,
                                 w.keys, w.templates)
        score(&self.index, &self.scorer, w.keys, w.templates, key_count, part, w.spans, w.total, w.scores)


    def _check_input(self, tokens, feats, offsets, heads, labels, counts, int root_label):
        """What :meth:`parse` is given, checked against itself and the tables (O(sentences), per call):
        every sentence's rows (its root, its words) within the token table, whose last row is the
        NONE token, the token attributes read there, room for every node's head and label."""
        bounds = np.asarray(offsets)
        last = bounds[len(bounds) - 1] if len(bounds) else -1
        if tokens.shape[0] < 1 or tokens.shape[1] <= max(self.reader.max_attribute,
                                                          self.split_reader.max_attribute if self.has_split else -1):
            raise ValueError(f"a token table of {tokens.shape[0]} rows and {tokens.shape[1]} attributes")
        if len(bounds) < 1 or bounds[0] < 0 or np.any(np.diff(bounds) < 1) or last > tokens.shape[0] - 1:
            raise ValueError("sentence offsets that are not increasing rows of the token table")
        if len(heads) < last or len(labels) < last or len(counts) < 5:
            raise ValueError("too little room for the heads, labels or counts")
        if feats.shape[1] > 0 and feats.shape[0] != tokens.shape[0]:
            raise ValueError(f"{feats.shape[0]} rows of FEATS for {tokens.shape[0]} tokens")
        if not 0 <= root_label < self.n_labels:
            raise ValueError(f"root label {root_label} of {self.n_labels}")

    def parse(self, const long long[:, ::1] tokens, const long long[:, ::1] feats, const long long[::1] offsets,
              long long[::1] heads, long long[::1] labels, long long[::1] counts, int root_label, trace=None,
              given_heads=None, given_labels=None, float[:, ::1] arc_scores=None, long long[::1] arc_class=None,
              float[:, ::1] step_moves=None, long long[::1] step_chosen=None, long long[:, ::1] step_candidates=None,
              long long[::1] step_count=None):
        """Parse the sentences of a ``TokenTable`` (``tokens``, ``feats`` (0 columns when
        the model reads no FEATS), ``offsets``): heads and labels of every node, at the
        sentence's table rows, and ``counts`` += (transitions, forced, scored,
        illegal_top, unseen_choice). ``trace``: a list to which each sentence's list of
        ``(move, label, row or None)`` is appended (for the tests). ``given_heads`` and
        ``given_labels`` (arc-eager and arc-hybrid; int64 at the table rows, -1: none): arcs to
        keep, as :class:`barley.constraints.TransitionGuide` keeps them. Confidence
        (:class:`barley.confidence.MoveSteps`): ``arc_scores`` and ``arc_class``, at the row of
        each word whose arc a scored move made, every class's score at that step (-inf where
        the class's move was illegal) and the class taken (left as they are for the other
        rows); ``step_moves``, ``step_chosen``, ``step_candidates``: per scored step, each
        move's best score (-inf: illegal), the move taken, the row of the word each legal arc
        move would attach (-1: none), for as many steps as they have room for;
        ``step_count[0]``: how many scored steps there were (more than the room: parse again
        with more)."""
        cdef Py_ssize_t n_sentences = offsets.shape[0] - 1, k
        cdef int n, m, c, move, label, best, top, i
        cdef long long sentence_row
        cdef bint legal[MAX_MOVES]
        cdef bint allowed
        cdef float best_score, top_score
        cdef State s
        cdef Workspace w
        cdef float* scores
        cdef bint tracing = trace is not None
        cdef bint recording = arc_scores is not None
        cdef long long scored_steps = 0, room = 0
        cdef list steps
        cdef bint guided = given_heads is not None
        cdef const long long[::1] given_head_view
        cdef const long long[::1] given_label_view
        cdef bint keep[MAX_MOVES]
        cdef int label_of[MAX_MOVES]
        self._check_input(tokens, feats, offsets, heads, labels, counts, root_label)
        if recording:
            if (arc_class is None or arc_scores.shape[0] < len(heads) or arc_class.shape[0] < len(heads)
                    or arc_scores.shape[1] != self.n_classes):
                raise ValueError("too little room for the arcs' scores and classes")
            if (step_moves is None or step_chosen is None or step_candidates is None or step_count is None
                    or step_count.shape[0] < 1 or step_moves.shape[1] != self.n_moves
                    or step_candidates.shape[1] != self.n_moves or step_chosen.shape[0] < step_moves.shape[0]
                    or step_candidates.shape[0] < step_moves.shape[0]):
                raise ValueError("the steps' arrays do not fit")
            room = step_moves.shape[0]
        if guided:
            if self.system != SYS_ARC_EAGER and self.system != SYS_ARC_HYBRID:
                raise ValueError("the compiled loop keeps given arcs for arc-eager and arc-hybrid only")
            given_head_view = checked("given_heads", given_heads, np.int64, tokens.shape[0], -1, tokens.shape[0])
            given_label_view = checked("given_labels", given_labels, np.int64, tokens.shape[0], -1, self.n_labels)
            for k in range(n_sentences):  # each given head a node of its own sentence
                n = <int> (offsets[k + 1] - offsets[k] - 1)
                for i in range(n + 1):
                    if given_head_view[offsets[k] + i] > n or (i == 0 and given_head_view[offsets[k]] != -1):
                        raise ValueError(f"given_heads: {given_head_view[offsets[k] + i]} is no head in sentence {k}")
        try:
            self._open(&w, tokens, feats, offsets, 1)
            scores = w.scores
            for k in range(n_sentences):
                sentence_row = offsets[k]
                n = <int> (offsets[k + 1] - offsets[k] - 1)
                init_state(&s, self.system, n, w.memory)
                if tracing:
                    steps = []
                    trace.append(steps)
                while not is_terminal(self.system, self.single_root, &s):
                    legal_moves(self.system, self.single_root, &s, legal)
                    move = self._forced(legal)
                    if move >= 0:
                        apply_move(self.system, &s, move, -1)
                        counts[1] += 1
                        if tracing:
                            steps.append((move, -1, None))
                        continue
                    self._score(&w, &s, sentence_row)
                    for m in range(self.n_moves):
                        keep[m] = legal[m]
                        label_of[m] = -1
                    if guided:
                        keep_given_arcs(self.system, self.single_root, &s, &given_head_view[sentence_row],
                                        &given_label_view[sentence_row], w.where, keep, label_of)
                    # numpy's argmax: the first best class, and the first best legal one
                    top = 0
                    top_score = scores[0]
                    best = -1
                    best_score = NEG_INF
                    for c in range(self.n_classes):
                        if scores[c] > top_score:
                            top, top_score = c, scores[c]
                        m = self.class_move[c]
                        allowed = keep[m] and (label_of[m] < 0 or self.class_label[c] == label_of[m])
                        if allowed and (best < 0 or scores[c] > best_score):
                            best, best_score = c, scores[c]
                    if best < 0:
                        best = 0
                    counts[2] += 1
                    counts[3] += not legal[self.class_move[top]]
                    counts[4] += best_score <= UNSEEN / 2
                    move, label = self.class_move[best], self.class_label[best]
                    if recording:  # before the move: whose head each legal arc move would decide
                        self._record_step(&s, legal, scores, move, best, sentence_row, scored_steps < room,
                                          scored_steps, step_moves, step_chosen, step_candidates, arc_scores,
                                          arc_class)
                        scored_steps += 1
                    apply_move(self.system, &s, move, label)
                    if tracing:
                        steps.append((move, label, tuple([w.row[i] for i in range(self.width)])))
                counts[0] += s.transitions
                finalize(&s, self.single_root, root_label)
                if recording:
                    step_count[0] = scored_steps
                for i in range(n + 1):
                    heads[sentence_row + i] = s.heads[i]
                    labels[sentence_row + i] = s.labels[i]
        finally:
            self._close(&w)

    def parse_beam(self, const long long[:, ::1] tokens, const long long[:, ::1] feats, const long long[::1] offsets,
                   int beam_width, long long[:, ::1] heads, long long[:, ::1] labels, double[:, ::1] item_scores,
                   long long[::1] sizes, long long[::1] counts, int root_label):
        """Beam search (:func:`barley.transition.beam.parse_batch_beam`, the reference and its
        specification) over the sentences of a ``TokenTable``, each on its own: per sentence ``k``,
        its final beam's ``sizes[k]`` items, best first, item ``i`` finalized into
        ``heads[i, rows]`` and ``labels[i, rows]`` (the sentence's table rows) with its score
        ``item_scores[k, i]``; ``counts`` += (transitions of each best item, forced, scored,
        illegal_top, unseen_choice).

        Each step, as the reference: a terminal item stays, a forced move adds nothing, a scored
        item offers its ``beam_width`` best legal classes (by score, then class number), totals in
        double as the reference's float64 sums of float32 scores; the ``beam_width`` best offers
        (ties to the earlier offer: items in beam order, each item's classes in its order) make the
        next beam, each a copy of its item's configuration with the move applied."""
        cdef Py_ssize_t n_sentences = offsets.shape[0] - 1, k
        cdef int n, m, c, i, j, t, move, top, count, width = beam_width, size, chosen, offered, place
        cdef long long sentence_row, block
        cdef bint legal[MAX_MOVES]
        cdef bint active
        cdef float top_score
        cdef double total
        cdef Workspace w
        cdef float* scores
        cdef State* states = NULL         # the beam and the next one
        cdef State* beam
        cdef State* next_beam
        cdef int* blocks = NULL           # their lists
        cdef int* memory
        cdef int* next_memory
        cdef double* beam_scores = NULL
        cdef double* offer_total = NULL   # the best offers so far, best first
        cdef int* offer_item = NULL
        cdef int* offer_move = NULL
        cdef int* offer_label = NULL
        cdef int* item_class = NULL       # one item's best legal classes so far, best first
        self._check_input(tokens, feats, offsets, heads[0], labels[0], counts, root_label)
        if width < 1 or heads.shape[0] < width or labels.shape[0] < width or item_scores.shape[1] < width \
                or item_scores.shape[0] < n_sentences or sizes.shape[0] < n_sentences \
                or heads.shape[1] != labels.shape[1]:
            raise ValueError(f"too little room for beams of {width} items")
        try:
            self._open(&w, tokens, feats, offsets, 0)
            scores = w.scores
            block = LISTS_PER_NODE * (w.longest + 2)
            states = <State*> malloc(2 * width * sizeof(State))
            blocks = <int*> malloc(2 * width * block * sizeof(int))
            beam_scores = <double*> malloc(2 * width * sizeof(double))
            offer_total = <double*> malloc(width * sizeof(double))
            offer_item = <int*> malloc(4 * width * sizeof(int))
            item_class = <int*> malloc(width * sizeof(int))
            if not (states and blocks and beam_scores and offer_total and offer_item and item_class):
                raise MemoryError()
            beam, next_beam, memory, next_memory = states, states + width, blocks, blocks + width * block
            offer_move, offer_label = offer_item + width, offer_item + 2 * width
            for k in range(n_sentences):
                sentence_row = offsets[k]
                n = <int> (offsets[k + 1] - offsets[k] - 1)
                init_state(&beam[0], self.system, n, memory)
                beam_scores[0] = 0.0
                size = 1
                while True:
                    active, offered = False, 0
                    for i in range(size):
                        if is_terminal(self.system, self.single_root, &beam[i]):  # stays as it is
                            offered = offer(offer_total, offer_item, offer_move, offer_label, offered, width,
                                            beam_scores[i], i, -1, -1)
                            continue
                        active = True
                        legal_moves(self.system, self.single_root, &beam[i], legal)
                        move = self._forced(legal)
                        if move >= 0:
                            counts[1] += 1
                            offered = offer(offer_total, offer_item, offer_move, offer_label, offered, width,
                                            beam_scores[i], i, move, -1)
                            continue
                        self._score(&w, &beam[i], sentence_row)
                        top, count = 0, 0
                        for c in range(self.n_classes):
                            if scores[c] > scores[top]:
                                top = c
                            if not legal[self.class_move[c]]:
                                continue
                            place = count  # after every class scored as high: stable
                            while place > 0 and scores[item_class[place - 1]] < scores[c]:
                                place -= 1
                            if place < width:
                                for j in range(min(count, width - 1), place, -1):
                                    item_class[j] = item_class[j - 1]
                                item_class[place] = c
                                count = min(count + 1, width)
                        counts[2] += 1
                        counts[3] += not legal[self.class_move[top]]
                        counts[4] += count == 0 or scores[item_class[0]] <= UNSEEN / 2
                        for t in range(count):
                            c = item_class[t]
                            offered = offer(offer_total, offer_item, offer_move, offer_label, offered, width,
                                            beam_scores[i] + <double> scores[c], i, self.class_move[c],
                                            self.class_label[c])
                    if not active:
                        break
                    for j in range(offered):
                        copy_state(&next_beam[j], &beam[offer_item[j]], next_memory + j * block)
                        if offer_move[j] >= 0:
                            apply_move(self.system, &next_beam[j], offer_move[j], offer_label[j])
                        beam_scores[width + j] = offer_total[j]
                    for j in range(offered):
                        beam_scores[j] = beam_scores[width + j]
                    beam, next_beam = next_beam, beam
                    memory, next_memory = next_memory, memory
                    size = offered
                counts[0] += beam[0].transitions
                sizes[k] = size
                for i in range(size):
                    finalize(&beam[i], self.single_root, root_label)
                    item_scores[k, i] = beam_scores[i]
                    for j in range(n + 1):
                        heads[i, sentence_row + j] = beam[i].heads[j]
                        labels[i, sentence_row + j] = beam[i].labels[j]
        finally:
            self._close(&w)
            free(states)
            free(blocks)
            free(beam_scores)
            free(offer_total)
            free(offer_item)
            free(item_class)
