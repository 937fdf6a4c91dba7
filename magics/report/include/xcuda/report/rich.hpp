// The one result type of every report builder: a text/plain twin, the text/html body and,
// for charts, an image/svg+xml document. The binding layer publishes them as one
// display_data bundle, so a frontend that cannot render HTML still shows the plain text.
#pragma once

#include <string>

namespace xcuda::report {

struct Rich {
    std::string plain;
    std::string html;
    std::string svg;  // empty when the report has no chart
};

}  // namespace xcuda::report
