#include "ptx/parser.hpp"

#include "ptx/lexer.hpp"
#include "ptx/literals.hpp"
#include "ptx/loc_tracker.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

namespace xcuda::cpu::ptx {

ParseError::ParseError(int line, const std::string& message)
    : std::runtime_error("PTX line " + std::to_string(line) + ": " + message), line_(line) {}

namespace {

std::optional<Space> space_of(std::string_view directive) {
    if (directive == ".reg") return Space::reg;
    if (directive == ".param") return Space::param;
    if (directive == ".shared") return Space::shared;
    if (directive == ".global") return Space::global;
    if (directive == ".local") return Space::local;
    if (directive == ".const") return Space::const_;
    if (directive == ".sreg") return Space::sreg;
    if (directive == ".tex") return Space::tex;
    return std::nullopt;
}

// Brackets and braces nest only a few levels in PTX ([tex, {x, y}], {{1, 2}, {3, 4}}); the bound
// keeps a malformed text from exhausting the stack.
constexpr int max_nesting = 16;

bool is_linkage(std::string_view directive) {
    return directive == ".visible" || directive == ".extern" || directive == ".weak" || directive == ".common";
}

// `\"` and `\\` in a string as written (file names on Windows hosts have them).
std::string unescape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        out += text[i];
    }
    return out;
}

class Parser {
public:
    explicit Parser(std::string_view text) : lex_(text) {}

    Module parse_module();

private:
    // Module scope.
    void parse_version();
    void parse_target();
    void parse_file();
    void skip_section();
    void parse_linked_declaration(const Token& first);
    void parse_function(const Token& keyword, bool is_visible, bool is_extern, bool is_weak);
    void parse_params(std::vector<Variable>& out, const Function& f, const char* which);
    enum class Header : std::uint8_t { more, done, declaration_ended };
    Header parse_header_directive(Function& f);

    // Declarations.
    Variable parse_var_attributes(Space space, const Token& keyword);
    void parse_declarator(Variable& v);
    void parse_initializer(Variable& v);
    void parse_init_list(Variable& v, int open_line, int depth);
    InitValue parse_init_element(const Variable& v);
    std::int64_t parse_offset();

    // Function bodies.
    void parse_body(Function& f, int open_line);
    void parse_registers(const Token& keyword, std::vector<Statement>& body);
    void parse_labelled(const Token& name, std::vector<Statement>& body);
    void parse_loc();
    Instruction parse_instruction(const Token& opcode, std::string guard, bool guard_negated);
    Operand parse_operand(const Instruction& ins, int depth = 0);
    Operand parse_name_operand(const Token& word, const Instruction& ins);
    Operand parse_address(const Instruction& ins, int open_line, int depth);
    static Operand literal_operand(const Literal& literal);

    // Directives this parser has no use for: their operands up to the ';', or their { } block.
    void skip_unknown_directive(const Token& directive);

    // Tokens.
    [[noreturn]] void fail(int line, const std::string& message) const { throw ParseError(line, message); }
    [[noreturn]] void expected(const std::string& what, const Token& found) const {
        fail(found.line, "expected " + what + ", found " + describe(found));
    }
    bool accept(char c) {
        if (!lex_.peek().is(c)) return false;
        lex_.next();
        return true;
    }
    // What a message says was expected: a string, or a function that makes one, so that messages
    // naming an operand or a declaration are built only when they are needed.
    template <typename What>
    static std::string text_of(const What& what) {
        if constexpr (std::is_invocable_v<What>) {
            return what();
        } else {
            return what;
        }
    }
    template <typename After>
    Token expect(char c, const After& after) {
        Token t = lex_.next();
        if (!t.is(c)) expected(std::string("'") + c + "' " + text_of(after), t);
        return t;
    }
    template <typename What>
    Token expect_word(const What& what) {
        Token t = lex_.next();
        if (t.kind != TokenKind::word) expected(text_of(what), t);
        return t;
    }
    // A number with an optional '-'; nullopt, with nothing consumed, when neither comes next.
    std::optional<Literal> accept_literal();
    Literal expect_literal(const std::string& what);
    // An integer in [0, max].
    template <typename What>
    std::uint64_t expect_unsigned(const What& what, std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
        const Token t = lex_.next();
        const std::optional<Literal> literal = t.kind == TokenKind::number ? read_literal(t.text) : std::nullopt;
        if (!literal || literal->kind != Literal::Kind::integer) expected(text_of(what), t);
        if (literal->bits > max) {
            fail(t.line,
                 describe(t) + " is out of range for " + text_of(what) + " (at most " + std::to_string(max) + ")");
        }
        return literal->bits;
    }
    template <typename What>
    int expect_int(const What& what) {
        return static_cast<int>(expect_unsigned(what, std::numeric_limits<int>::max()));
    }
    template <typename What>
    unsigned expect_uint(const What& what) {
        return static_cast<unsigned>(expect_unsigned(what, std::numeric_limits<unsigned>::max()));
    }

    Lexer lex_;
    LocTracker locs_;
    Module module_;
};

Module Parser::parse_module() {
    for (;;) {
        Token t = lex_.next();
        if (t.kind == TokenKind::end) break;
        if (t.kind != TokenKind::directive) {
            expected("a directive at module scope (.version, .target, .entry, .func, a variable)", t);
        }
        if (t.text == ".version") {
            parse_version();
        } else if (t.text == ".target") {
            parse_target();
        } else if (t.text == ".address_size") {
            module_.address_size = expect_int("the address size after .address_size");
        } else if (t.text == ".file") {
            parse_file();
        } else if (t.text == ".section") {
            skip_section();
        } else if (is_linkage(t.text) || t.text == ".entry" || t.text == ".func" || space_of(t.text)) {
            parse_linked_declaration(t);
        } else {
            skip_unknown_directive(t);
        }
    }
    return std::move(module_);
}

void Parser::parse_version() {
    const Token t = lex_.next();
    const std::size_t dot = t.text.find('.');
    std::optional<Literal> major, minor;
    if (t.kind == TokenKind::number && dot != std::string_view::npos) {
        major = read_literal(t.text.substr(0, dot));
        minor = read_literal(t.text.substr(dot + 1));
    }
    if (!major || !minor || major->kind != Literal::Kind::integer || minor->kind != Literal::Kind::integer) {
        expected("a version MAJOR.MINOR after .version", t);
    }
    module_.version_major = static_cast<int>(major->bits);
    module_.version_minor = static_cast<int>(minor->bits);
}

void Parser::parse_target() {
    module_.target = std::string(expect_word("a target (sm_90, ...) after .target").text);
    while (accept(',')) module_.target_options.emplace_back(expect_word("a target option after ','").text);
}

// `.file 1 "name"` or `.file 1 "name", timestamp, size`.
void Parser::parse_file() {
    const int index = expect_int("a file index after .file");
    const Token name = lex_.next();
    if (name.kind != TokenKind::string) expected("a quoted file name after .file " + std::to_string(index), name);
    module_.files[index] = unescape(name.text);
    while (accept(',')) expect_literal("a timestamp or size after the file name of .file " + std::to_string(index));
}

void Parser::skip_section() {
    const Token name = lex_.next();
    if (name.kind != TokenKind::directive && name.kind != TokenKind::word) {
        expected("a section name after .section", name);
    }
    const Token open = expect('{', "after .section " + std::string(name.text));
    lex_.skip_to_closing_brace(open.line);
}

void Parser::skip_unknown_directive(const Token& directive) {
    int last_line = directive.line;
    bool continues = false;  // the last token was a ',': the operands go on on the next line
    for (;;) {
        const Token& t = lex_.peek();
        if (t.kind == TokenKind::end) return;
        if (t.is(';')) {
            lex_.next();
            return;
        }
        if (t.is('{')) {
            const int open_line = t.line;
            lex_.next();
            lex_.skip_to_closing_brace(open_line);
            return;
        }
        // Without a ';' the directive ends with its line (as .loc and .file do).
        if (t.line != last_line && !continues) return;
        continues = t.is(',');
        last_line = t.line;
        lex_.next();
    }
}

void Parser::parse_linked_declaration(const Token& first) {
    bool is_visible = false, is_extern = false, is_weak = false;
    Token t = first;
    while (is_linkage(t.text)) {
        if (t.text == ".visible") is_visible = true;
        if (t.text == ".extern") is_extern = true;
        // .common symbols merge across modules as .weak ones do; the emulator links one module.
        if (t.text == ".weak" || t.text == ".common") is_weak = true;
        t = lex_.next();
    }
    if (t.is_directive(".entry") || t.is_directive(".func")) {
        parse_function(t, is_visible, is_extern, is_weak);
        return;
    }
    const std::optional<Space> space = t.kind == TokenKind::directive ? space_of(t.text) : std::nullopt;
    if (!space) expected(".entry, .func or a state space (.global, .shared, ...) after the linkage", t);
    Variable base = parse_var_attributes(*space, t);
    base.is_visible = is_visible;
    base.is_extern = is_extern;
    base.is_weak = is_weak;
    do {
        Variable v = base;
        parse_declarator(v);
        module_.variables.push_back(std::move(v));
    } while (accept(','));
    expect(';', [&] { return "after the declaration of '" + module_.variables.back().name + "'"; });
}

void Parser::parse_function(const Token& keyword, bool is_visible, bool is_extern, bool is_weak) {
    Function f;
    f.is_entry = keyword.text == ".entry";
    f.is_visible = is_visible;
    f.is_extern = is_extern;
    f.is_weak = is_weak;
    f.source_line = keyword.line;
    for (;;) {
        if (lex_.peek().is_directive(".attribute")) {
            // .attribute(.unified(uuid1, uuid2)): how a function is shared with the host's
            // address space, which the emulator's single address space makes moot.
            lex_.next();
            const Token open = expect('(', "after .attribute");
            int depth = 1;
            while (depth > 0) {
                const Token t = lex_.next();
                if (t.kind == TokenKind::end) fail(open.line, "'(' of .attribute without a closing ')'");
                depth += t.is('(') ? 1 : t.is(')') ? -1 : 0;
            }
        } else if (!f.is_entry && f.returns.empty() && accept('(')) {
            parse_params(f.returns, f, "return parameter");
        } else {
            break;
        }
    }
    f.name = std::string(expect_word(std::string("the name of the ") + (f.is_entry ? ".entry" : ".func")).text);
    if (accept('(')) parse_params(f.params, f, "parameter");
    Header header = Header::more;
    while (header == Header::more) header = parse_header_directive(f);
    if (header != Header::declaration_ended) {
        const Token t = lex_.next();
        if (t.is('{')) {
            f.has_body = true;
            parse_body(f, t.line);
        } else if (!t.is(';')) {
            expected("'{' or ';' after the declaration of '" + f.name + "'", t);
        }
    }
    module_.functions.push_back(std::move(f));
}

// After the '(': `.param .b32 a, .param .align 8 .b8 s[16])`, or `.reg .b32 x` (old style).
void Parser::parse_params(std::vector<Variable>& out, const Function& f, const char* which) {
    if (accept(')')) return;
    const std::string where = std::string(which) + (f.name.empty() ? "" : " of '" + f.name + "'");
    do {
        const Token keyword = lex_.next();
        const std::optional<Space> space = keyword.kind == TokenKind::directive ? space_of(keyword.text) : std::nullopt;
        if (space != Space::param && space != Space::reg) expected("'.param' or '.reg' to start a " + where, keyword);
        Variable v = parse_var_attributes(*space, keyword);
        parse_declarator(v);
        out.push_back(std::move(v));
    } while (accept(','));
    expect(')', "after the last " + where);
}

Parser::Header Parser::parse_header_directive(Function& f) {
    const Token& peeked = lex_.peek();
    if (peeked.kind != TokenKind::directive) return Header::done;
    const Token d = lex_.next();
    const std::string what = " after " + std::string(d.text) + " of '" + f.name + "'";
    auto read_dims = [&](unsigned(&dims)[3]) {
        int i = 0;
        do {
            if (i == 3) fail(d.line, "more than 3 dimensions" + what);
            dims[i++] = expect_uint("a dimension" + what);
        } while (accept(','));
    };
    if (d.text == ".maxntid") {
        read_dims(f.maxntid);
    } else if (d.text == ".reqntid") {
        read_dims(f.reqntid);
    } else if (d.text == ".reqnctapercluster") {
        read_dims(f.reqnctapercluster);
    } else if (d.text == ".minnctapersm") {
        f.minnctapersm = expect_uint("a CTA count" + what);
    } else if (d.text == ".maxnreg") {
        f.maxnreg = expect_uint("a register count" + what);
    } else if (d.text == ".maxclusterrank") {
        f.maxclusterrank = expect_uint("a cluster size" + what);
    } else if (d.text == ".explicitcluster") {
        f.explicitcluster = true;
    } else if (d.text == ".noreturn") {
        f.noreturn = true;
    } else if (d.text == ".pragma") {
        // `.entry foo .pragma "nounroll"; { ... }`: its ';' ends the declaration only when no
        // body follows.
        do {
            const Token text = lex_.next();
            if (text.kind != TokenKind::string) expected("a quoted string" + what, text);
        } while (accept(','));
        expect(';', "after .pragma" + what.substr(6));
        return lex_.peek().is('{') ? Header::more : Header::declaration_ended;
    } else {
        // Other hints (.maxnctapersm N, .abi_preserve N): their operands, up to the body, the
        // next directive or the declaration's ';'.
        for (;;) {
            const Token& t = lex_.peek();
            if (t.kind == TokenKind::end || t.kind == TokenKind::directive || t.is('{') || t.is(';')) break;
            lex_.next();
        }
    }
    return Header::more;
}

std::optional<Literal> Parser::accept_literal() {
    const Token& peeked = lex_.peek();
    const bool negative = peeked.is('-');
    if (!negative && peeked.kind != TokenKind::number) return std::nullopt;
    if (negative) lex_.next();
    const Token t = lex_.next();
    if (t.kind != TokenKind::number) expected("a number after '-'", t);
    const std::optional<Literal> literal = read_literal(t.text);
    if (!literal) fail(t.line, "malformed number " + describe(t));
    return negative ? literal->negated() : *literal;
}

Literal Parser::expect_literal(const std::string& what) {
    const std::optional<Literal> literal = accept_literal();
    if (!literal) expected(what, lex_.peek());
    return *literal;
}

// After the state space: `.align 8 .v4 .f32`, `.u64 .ptr .global .align 16`, `.attribute(.managed) .u32`.
Variable Parser::parse_var_attributes(Space space, const Token& keyword) {
    Variable v;
    v.space = space;
    v.source_line = keyword.line;
    while (lex_.peek().kind == TokenKind::directive) {
        const Token d = lex_.next();
        if (d.text == ".align") {
            v.align = expect_int("an alignment after .align");
        } else if (d.text == ".ptr") {
            v.ptr = true;
            const Token& target = lex_.peek();
            if (target.is_directive(".global") || target.is_directive(".shared") || target.is_directive(".const") ||
                target.is_directive(".local")) {
                v.ptr_space = std::string(lex_.next().text.substr(1));
            }
            // `.ptr .global .align 16` is the alignment of what the parameter points to: a hint
            // for the compiler, not the parameter's own alignment.
            if (lex_.peek().is_directive(".align")) {
                lex_.next();
                expect_unsigned("an alignment after .ptr ... .align");
            }
        } else if (d.text == ".v2" || d.text == ".v4" || d.text == ".v8") {
            v.vector = d.text[2] - '0';
        } else if (d.text == ".attribute") {
            const Token open = expect('(', "after .attribute");
            for (;;) {
                const Token t = lex_.next();
                if (t.is(')')) break;
                if (t.is_directive(".managed")) {
                    v.managed = true;
                } else if (!t.is(',') && t.kind != TokenKind::directive) {
                    expected(
                        "an attribute (.managed) or ')' in .attribute( opened on line " + std::to_string(open.line), t);
                }
            }
        } else if (v.type.empty()) {
            v.type = std::string(d.text.substr(1));
        } else {
            fail(d.line, "unexpected " + describe(d) + " in a " + std::string(keyword.text) + " declaration of type ." +
                             v.type + ": expected a name");
        }
    }
    if (v.type.empty()) {
        expected("a type (.b32, .f32, .pred, ...) in the " + std::string(keyword.text) + " declaration", lex_.peek());
    }
    return v;
}

// `name`, `name[16]`, `name[4][8]`, `name[]`, each with an optional `= initializer`.
void Parser::parse_declarator(Variable& v) {
    const Token name = expect_word([&] { return "a name in the ." + v.type + " declaration"; });
    v.name = std::string(name.text);
    while (accept('[')) {
        if (lex_.peek().is(']')) {
            v.dims.push_back(0);
        } else {
            v.dims.push_back(expect_unsigned([&] { return "an array size in the declaration of '" + v.name + "'"; }));
        }
        expect(']', [&] { return "after the array size of '" + v.name + "'"; });
    }
    if (accept('=')) parse_initializer(v);
}

void Parser::parse_initializer(Variable& v) {
    const Token& t = lex_.peek();
    if (t.is('{')) {
        const int open_line = t.line;
        lex_.next();
        // Tables of hundreds of kilobytes are common (curand's precomputed matrices); each
        // element takes at least two characters of the text, which bounds a bogus size.
        std::uint64_t elements = static_cast<std::uint64_t>(v.vector);
        for (std::uint64_t d : v.dims) elements *= d;
        v.init.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(elements, lex_.remaining() / 2)));
        parse_init_list(v, open_line, 1);
    } else {
        v.init.push_back(parse_init_element(v));
    }
}

// After a '{': elements and nested lists (multi-dimensional arrays), flattened in order.
void Parser::parse_init_list(Variable& v, int open_line, int depth) {
    if (depth > max_nesting) {
        fail(open_line,
             "initializer of '" + v.name + "' nested deeper than " + std::to_string(max_nesting) + " braces");
    }
    if (accept('}')) return;
    do {
        const Token& t = lex_.peek();
        if (t.is('{')) {
            const int inner_line = t.line;
            lex_.next();
            parse_init_list(v, inner_line, depth + 1);
        } else {
            v.init.push_back(parse_init_element(v));
        }
    } while (accept(','));
    expect('}',
           [&] { return "or ',' in the initializer of '" + v.name + "' opened on line " + std::to_string(open_line); });
}

InitValue Parser::parse_init_element(const Variable& v) {
    InitValue value;
    const Token& t = lex_.peek();
    if (t.kind == TokenKind::word) {
        Token word = lex_.next();
        value.kind = InitValue::Kind::symbol;
        if (word.text == "generic" && lex_.peek().is('(')) {
            lex_.next();
            value.generic = true;
            word = expect_word("a symbol in generic( ) in the initializer of '" + v.name + "'");
            expect(')', "after generic(" + std::string(word.text));
        }
        value.symbol = std::string(word.text);
        value.offset = parse_offset();
        return value;
    }
    const std::optional<Literal> literal = accept_literal();
    if (!literal) expected("a number or a symbol in the initializer of '" + v.name + "'", t);
    if (literal->kind == Literal::Kind::integer) {
        value.bits = literal->bits;
        return value;
    }
    value.kind = InitValue::Kind::floating;
    value.bits = v.type == "f32" ? literal->f32_bits() : v.type == "f64" ? literal->f64_bits() : literal->bits;
    return value;
}

// `+8`, `+-4`, `-4` after a symbol or register; 0 when none follows.
std::int64_t Parser::parse_offset() {
    const Token& t = lex_.peek();
    if (!t.is('+') && !t.is('-')) return 0;
    const bool minus = t.is('-');
    lex_.next();
    const Literal literal = expect_literal(std::string("an offset after '") + (minus ? '-' : '+') + "'");
    if (literal.kind != Literal::Kind::integer) fail(lex_.line(), "expected an integer offset, found a float");
    const auto offset = static_cast<std::int64_t>(literal.bits);
    return minus ? -offset : offset;
}

void Parser::parse_body(Function& f, int open_line) {
    locs_.reset();
    std::vector<Statement>& body = f.body;
    int depth = 0;
    for (;;) {
        Token t = lex_.next();
        if (t.kind == TokenKind::end) {
            fail(t.line, "expected '}' closing the body of '" + f.name + "' opened on line " +
                             std::to_string(open_line) + ", found the end of the text");
        }
        if (t.kind == TokenKind::punct) {
            if (t.is('}') || t.is('{')) {
                if (t.is('}') && depth == 0) return;
                depth += t.is('{') ? 1 : -1;
                Statement s;
                s.kind = t.is('{') ? Statement::Kind::scope_begin : Statement::Kind::scope_end;
                s.source_line = t.line;
                body.push_back(std::move(s));
            } else if (t.is('@')) {
                const bool negated = accept('!');
                const Token guard = expect_word("a predicate register after '@'");
                const Token opcode = expect_word([&] {
                    return "an instruction after the guard @" + std::string(negated ? "!" : "") +
                           std::string(guard.text);
                });
                Statement s;
                s.source_line = opcode.line;
                s.instruction = parse_instruction(opcode, std::string(guard.text), negated);
                body.push_back(std::move(s));
            } else if (!t.is(';')) {
                expected("an instruction, a label, a declaration or '}' in the body of '" + f.name + "'", t);
            }
        } else if (t.kind == TokenKind::word) {
            if (lex_.peek().is(':')) {
                lex_.next();
                parse_labelled(t, body);
            } else {
                Statement s;
                s.source_line = t.line;
                s.instruction = parse_instruction(t, {}, false);
                body.push_back(std::move(s));
            }
        } else if (t.kind == TokenKind::directive) {
            if (t.text == ".reg") {
                parse_registers(t, body);
            } else if (const std::optional<Space> space = space_of(t.text)) {
                Variable base = parse_var_attributes(*space, t);
                do {
                    Statement s;
                    s.kind = Statement::Kind::variable;
                    s.source_line = t.line;
                    s.variable = base;
                    parse_declarator(s.variable);
                    body.push_back(std::move(s));
                } while (accept(','));
                expect(';', [&] { return "after the declaration of '" + body.back().variable.name + "'"; });
            } else if (t.text == ".loc") {
                parse_loc();
            } else if (t.text == ".pragma") {
                Statement s;
                s.kind = Statement::Kind::pragma;
                s.source_line = t.line;
                // `.pragma "a", "b";`: one statement per string.
                do {
                    const Token text = lex_.next();
                    if (text.kind != TokenKind::string) expected("a quoted string after .pragma", text);
                    s.text = unescape(text.text);
                    body.push_back(s);
                } while (accept(','));
                expect(';', "after .pragma \"" + body.back().text + "\"");
            } else {
                skip_unknown_directive(t);
            }
        } else {
            expected("an instruction, a label, a declaration or '}' in the body of '" + f.name + "'", t);
        }
    }
}

// `.reg .b32 %r<79>;`, `.reg .pred %p1;`, `.reg .v4 .f32 %v<2>;`, `.reg .b32 a, b, c;`.
void Parser::parse_registers(const Token& keyword, std::vector<Statement>& body) {
    const Variable base = parse_var_attributes(Space::reg, keyword);
    do {
        Statement s;
        s.kind = Statement::Kind::registers;
        s.source_line = keyword.line;
        s.registers.type = base.type;
        s.registers.vector = base.vector;
        s.registers.source_line = keyword.line;
        const Token name = expect_word([&] { return "a register name in the .reg ." + base.type + " declaration"; });
        s.registers.name = std::string(name.text);
        if (accept('<')) {
            s.registers.count = expect_int([&] { return "a register count after '" + s.registers.name + "<'"; });
            expect('>', [&] { return "after the register count of '" + s.registers.name + "'"; });
        }
        body.push_back(std::move(s));
    } while (accept(','));
    expect(';', [&] { return "after the .reg declaration of '" + body.back().registers.name + "'"; });
}

// After `name:`: a label, or the label of `.branchtargets`, `.calltargets` or `.callprototype`.
void Parser::parse_labelled(const Token& name, std::vector<Statement>& body) {
    Statement s;
    s.kind = Statement::Kind::label;
    s.label = std::string(name.text);
    s.source_line = name.line;
    const Token& next = lex_.peek();
    if (next.is_directive(".branchtargets") || next.is_directive(".calltargets")) {
        s.kind = next.text == ".branchtargets" ? Statement::Kind::branch_targets : Statement::Kind::call_targets;
        const std::string what(next.text);
        lex_.next();
        do {
            s.targets.emplace_back(expect_word("a label after " + what + " of '" + s.label + "'").text);
        } while (accept(','));
        expect(';', "after the last target of " + what + " '" + s.label + "'");
    } else if (next.is_directive(".callprototype")) {
        s.kind = Statement::Kind::call_prototype;
        const std::size_t begin = next.offset + next.text.size();
        const int line = next.line;
        lex_.next();
        for (;;) {
            const Token t = lex_.next();
            if (t.is(';')) {
                s.text = std::string(lex_.slice(begin, t.offset));
                break;
            }
            if (t.kind == TokenKind::end || t.is('{') || t.is('}')) {
                fail(line, "expected ';' ending .callprototype '" + s.label + "', found " + describe(t));
            }
        }
    }
    body.push_back(std::move(s));
}

// `.loc 1 20 3` or `.loc 2 440 9, function_name $L__info_string0, inlined_at 1 20 3`.
void Parser::parse_loc() {
    const int file = expect_int("a file index after .loc");
    const int line = expect_int([&] { return "a line number after .loc " + std::to_string(file); });
    const int column =
        expect_int([&] { return "a column after .loc " + std::to_string(file) + " " + std::to_string(line); });
    std::optional<Loc::Site> inlined_at;
    while (accept(',')) {
        const Token key = expect_word("function_name or inlined_at after ',' in .loc");
        if (key.text == "function_name") {
            // A label in .debug_str (skipped): the inlined function's name, of no use without it.
            expect_word("a .debug_str label after function_name");
            parse_offset();
        } else if (key.text == "inlined_at") {
            Loc::Site site;
            site.file = expect_int("a file index after inlined_at");
            site.line = expect_int("a line number after inlined_at");
            site.column = expect_int("a column after inlined_at");
            inlined_at = site;
        } else {
            expected("function_name or inlined_at after ',' in .loc", key);
        }
    }
    locs_.set({file, line, column}, inlined_at);
}

Instruction Parser::parse_instruction(const Token& opcode, std::string guard, bool guard_negated) {
    Instruction ins;
    const char first = opcode.text[0];
    if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) {
        expected("an instruction or a label", opcode);
    }
    ins.guard = std::move(guard);
    ins.guard_negated = guard_negated;
    ins.source_line = opcode.line;
    ins.loc = locs_.current();
    // Most instructions have up to 4 of each: one allocation apiece instead of three.
    ins.suffixes.reserve(4);
    ins.operands.reserve(4);
    std::string_view rest = opcode.text;
    std::size_t dot = rest.find('.');
    ins.opcode = std::string(rest.substr(0, dot));
    while (dot != std::string_view::npos) {
        rest.remove_prefix(dot + 1);
        dot = rest.find('.');
        ins.suffixes.emplace_back(rest.substr(0, dot));
    }
    if (accept(';')) return ins;
    do {
        ins.operands.push_back(parse_operand(ins));
    } while (accept(','));
    const Token end = lex_.next();
    if (!end.is(';')) {
        expected("',' or ';' after operand " + std::to_string(ins.operands.size()) + " of '" +
                     std::string(opcode.text) + "'",
                 end);
    }
    return ins;
}

Operand Parser::parse_operand(const Instruction& ins, int depth) {
    if (const std::optional<Literal> literal = accept_literal()) return literal_operand(*literal);
    const Token t = lex_.next();
    if (t.kind == TokenKind::word) return parse_name_operand(t, ins);
    if (t.is('!')) {
        Operand op = parse_name_operand(expect_word("a predicate register after '!'"), ins);
        op.negated = true;
        return op;
    }
    if ((t.is('[') || t.is('{') || t.is('(')) && depth >= max_nesting) {
        fail(t.line, "operands of '" + ins.opcode + "' nested deeper than " + std::to_string(max_nesting));
    }
    if (t.is('[')) return parse_address(ins, t.line, depth + 1);
    if (t.is('{') || t.is('(')) {
        Operand op;
        op.kind = t.is('{') ? Operand::Kind::vector : Operand::Kind::list;
        const char close = t.is('{') ? '}' : ')';
        if (close == ')' && accept(')')) return op;
        do {
            op.elements.push_back(parse_operand(ins, depth + 1));
        } while (accept(','));
        expect(close, [&] {
            return std::string("or ',' closing the '") + t.text[0] + "' opened on line " + std::to_string(t.line) +
                   " in '" + ins.opcode + "'";
        });
        return op;
    }
    expected("an operand of '" + ins.opcode + "'", t);
}

// %r1, %tid.x, %v1.y, %r26|%p1, _, sym, sym+8, $L__BB0_3.
Operand Parser::parse_name_operand(const Token& word, const Instruction& ins) {
    Operand op;
    std::string_view name = word.text;
    if (name == "_") return op;
    const std::size_t dot = name.find('.');
    if (dot != std::string_view::npos) {
        const std::string_view component = name.substr(dot + 1);
        if (component.size() != 1 || std::string_view("xyzwrgba").find(component[0]) == std::string_view::npos) {
            fail(word.line, "expected a vector component (.x, .y, .z, .w) after '" + std::string(name.substr(0, dot)) +
                                "' in '" + ins.opcode + "', found '." + std::string(component) + "'");
        }
        op.vector_select = std::string(component);
        name = name.substr(0, dot);
    }
    op.kind = name[0] == '%' ? Operand::Kind::reg : Operand::Kind::symbol;
    op.name = std::string(name);
    if (accept('|'))
        op.pair = std::string(expect_word([&] { return "a second destination after '" + op.name + "|'"; }).text);
    if (op.kind == Operand::Kind::symbol) op.integer = parse_offset();
    return op;
}

// After '[': [%rd1], [%rd1+16], [%rd34+-4], [param0+0], [sym], [0x1000], [tex, smp, {%f1, %f2}].
Operand Parser::parse_address(const Instruction& ins, int open_line, int depth) {
    Operand op;
    op.kind = Operand::Kind::address;
    const Token& t = lex_.peek();
    if (t.kind == TokenKind::word) {
        op.name = std::string(lex_.next().text);
        op.integer = parse_offset();
    } else if (const std::optional<Literal> literal = accept_literal()) {
        if (literal->kind != Literal::Kind::integer) {
            fail(open_line, "expected an integer address in '[...]' of '" + ins.opcode + "', found a float");
        }
        op.integer = static_cast<std::int64_t>(literal->bits);
    } else {
        expected("a register, a symbol or an address after '[' in '" + ins.opcode + "'", t);
    }
    while (accept(',')) op.elements.push_back(parse_operand(ins, depth));
    expect(']', [&] { return "closing the '[' in '" + ins.opcode + "'"; });
    return op;
}

Operand Parser::literal_operand(const Literal& literal) {
    Operand op;
    if (literal.kind == Literal::Kind::integer) {
        op.kind = Operand::Kind::integer;
        op.integer = static_cast<std::int64_t>(literal.bits);
    } else {
        op.kind = Operand::Kind::floating;
        op.bits = literal.bits;
        op.is_double = literal.kind == Literal::Kind::f64;
    }
    return op;
}

}  // namespace

Module parse(std::string_view text) { return Parser(text).parse_module(); }

}  // namespace xcuda::cpu::ptx
