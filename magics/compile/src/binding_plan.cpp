#include "binding_plan.hpp"

#include "join.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace xcuda::compile::detail {
namespace {

// NVRTC refuses the address of a __managed__ variable as a name expression (it is not a
// constant): those are found by their Itanium-mangled name, computed below.
std::string name_expression_of(const GlobalDecl& g) {
    return g.space == MemorySpace::managed ? std::string() : "&" + g.key();
}

// The template of `name` among `candidates` (qualified names), matched in full or as the
// trailing part after "::" (an --instantiate may leave out the namespaces).
template <class Decl>
const Decl* find_template(const std::vector<Decl>& candidates, const std::string& name,
                          std::vector<std::string>& templates) {
    const Decl* match = nullptr;
    for (const auto& d : candidates) {
        if (!d.is_template) continue;
        templates.push_back(d.qualified_name);
        const std::string& q = d.qualified_name;
        const bool suffix = q.size() > name.size() + 2 && q.compare(q.size() - name.size(), name.size(), name) == 0 &&
                            q.compare(q.size() - name.size() - 2, 2, "::") == 0;
        if (!match && (q == name || suffix)) match = &d;
    }
    return match;
}

}  // namespace

std::vector<Binding> plan_bindings(const std::vector<KernelDecl>& decls, const std::vector<GlobalDecl>& variables,
                                   const CellOptions& options, std::vector<GlobalBinding>& globals,
                                   std::vector<std::string>& notes) {
    std::vector<Binding> out;
    for (const auto& g : variables)
        if (!g.is_template) globals.push_back({g, name_expression_of(g)});
    std::map<std::string, int> same_name;  // overloads need a cast in their name expression
    for (const auto& d : decls) same_name[d.qualified_name] += !d.is_template;
    for (const auto& d : decls) {
        if (d.is_template) continue;
        if (!d.is_definition) {
            notes.push_back("__global__ " + d.qualified_name +
                            " is declared but not defined in this cell; "
                            "it is not bound");
            continue;
        }
        Binding b{d, "", ""};
        if (!d.is_extern_c) {
            if (same_name[d.qualified_name] > 1) {
                std::vector<std::string> types;
                for (const auto& p : d.params) types.push_back(p.type);
                b.name_expression = "static_cast<void(*)(" + join_with(types, ", ") + ")>(&" + d.qualified_name + ")";
            } else {
                b.name_expression = "&" + d.qualified_name;
            }
        }
        out.push_back(std::move(b));
    }
    for (const auto& expr : options.instantiate) {
        std::string name;
        std::vector<std::string> args;
        if (!split_template_expr(expr, name, args))
            throw ParseError(expr, "--instantiate " + expr +
                                       " is not a template instantiation; write it like "
                                       "'axpy<float>' (quoted)");
        std::vector<std::string> templates, template_variables;
        const KernelDecl* match = find_template(decls, name, templates);
        if (!match) {
            if (const GlobalDecl* variable = find_template(variables, name, template_variables)) {
                GlobalDecl inst = instantiate_global(*variable, args);
                globals.push_back({inst, name_expression_of(inst)});
                continue;
            }
            throw ParseError(expr, "--instantiate " + expr +
                                       ": this cell has no __global__ template or template "
                                       "variable named " +
                                       name +
                                       (templates.empty() ? " (it has no template kernels"
                                                          : " (its template kernels: " + join_with(templates, ", ")) +
                                       (template_variables.empty()
                                            ? ")"
                                            : "; template variables: " + join_with(template_variables, ", ") + ")"));
        }
        KernelDecl inst = instantiate(*match, args);
        // NVRTC is given the arguments as written: it fills in defaults as C++ does, where a
        // default naming an earlier parameter (enable_if<is_integral<T>>) has no text of its own.
        std::string key = join_with(args, ", ");
        out.push_back({std::move(inst), "&" + match->qualified_name + "<" + key + ">", key});
    }
    std::set<std::string> instantiated;
    for (const auto& b : out)
        if (b.decl.is_template) instantiated.insert(b.decl.qualified_name);
    for (const auto& d : decls) {
        if (!d.is_template) continue;
        if (!instantiated.count(d.qualified_name))
            notes.push_back("template kernel " + d.qualified_name + " is not bound: add --instantiate '" +
                            d.qualified_name + "<" + example_template_args(d) + ">' (once per instantiation)");
    }
    for (const auto& g : variables) {
        if (!g.is_template) continue;
        const bool bound = std::any_of(globals.begin(), globals.end(), [&](const GlobalBinding& b) {
            return b.decl.is_template && b.decl.qualified_name == g.qualified_name;
        });
        if (!bound)
            notes.push_back("template variable " + g.qualified_name +
                            " has no address until instantiated: add "
                            "--instantiate '" +
                            g.qualified_name + "<" +
                            (g.template_params.empty() || g.template_params[0].is_type() ? "float" : "256") +
                            ">' to reach it with get_global");
    }
    if (decls.empty() && variables.empty()) notes.push_back("the cell defines no __global__ function; nothing to bind");
    return out;
}

}  // namespace xcuda::compile::detail
