// A report table as one list of columns, each its header and how a row fills its cell: the
// CSV and the Markdown tables are written from such lists, so a header and its cells cannot
// drift apart and no writer counts separators. Adding a column is one entry in its list.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace vb {

std::string csv_field(const std::string& text);  // RFC 4180 quoting where the text needs it
std::string markdown_escape(const std::string& text);  // a Markdown table cell: pipes escaped

template <typename Row>
struct Column {
  std::string header;
  bool numeric = false;  // Markdown: right-aligned
  std::function<std::string(const Row&)> cell;  // the cell's text as the table prints it
};

// Header line, then one line per row; every field RFC 4180-quoted where it needs it.
template <typename Row>
std::string csv_table(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows) {
  std::string out;
  auto line = [&](auto&& field) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i != 0) out += ',';
      out += csv_field(field(columns[i]));
    }
    out += '\n';
  };
  line([](const Column<Row>& c) { return c.header; });
  for (const Row& row : rows) line([&](const Column<Row>& c) { return c.cell(row); });
  return out;
}

// A GitHub-flavoured Markdown table; the cells escape their own text (pipes).
template <typename Row>
std::string markdown_table(const std::vector<Column<Row>>& columns, const std::vector<Row>& rows) {
  std::string header = "|", rule = "|";
  for (const Column<Row>& c : columns) {
    header += ' ';
    header += c.header;
    header += " |";
    rule += c.numeric ? " ---: |" : " --- |";
  }
  std::string out = header;
  out += '\n';
  out += rule;
  out += '\n';
  for (const Row& row : rows) {
    out += "|";
    for (const Column<Row>& c : columns) {
      out += ' ';
      out += c.cell(row);
      out += " |";
    }
    out += "\n";
  }
  return out;
}

}  // namespace vb
