#include "sim/dgl/flags.h"

#include <charconv>
#include <limits>
#include <sstream>

namespace sim::dglmodels {

namespace {

std::vector<std::string> Tokens(const std::vector<std::string>& command, const std::vector<std::string>& args) {
  std::vector<std::string> all = command;
  all.insert(all.end(), args.begin(), args.end());
  // A shell string: split the words of any token holding spaces (no quoting inside is modelled).
  std::vector<std::string> out;
  for (const std::string& t : all) {
    if (t.find_first_of(" \t\n") == std::string::npos) {
      out.push_back(t);
      continue;
    }
    std::istringstream words(t);
    for (std::string w; words >> w;) out.push_back(w);
  }
  return out;
}

std::string BaseName(const std::string& token) {
  auto slash = token.find_last_of('/');
  return slash == std::string::npos ? token : token.substr(slash + 1);
}

}  // namespace

DglFlags ParseDglFlags(const std::vector<std::string>& command, const std::vector<std::string>& args) {
  DglFlags f;
  std::vector<std::string> tokens = Tokens(command, args);
  std::size_t i = 0;
  // Skip everything up to the program itself (sh -c, env, python ...).
  for (; i < tokens.size(); ++i) {
    std::string base = BaseName(tokens[i]);
    if (base == "dglrun" || base == "dglkerun") {
      f.program = base;
      ++i;
      break;
    }
  }
  if (f.program.empty()) {
    f.program = "dglrun";
    i = 0;
  }
  auto int_value = [&](const std::string& flag, const std::string& text, int min, int* out) {
    int v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      f.errors.push_back(flag + ": invalid int value: '" + text + "'");
      return false;
    }
    if (v < min) {
      f.errors.push_back(flag + ": must be at least " + std::to_string(min) + ", got " + text);
      return false;
    }
    *out = v;
    return true;
  };
  for (; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t.rfind("--", 0) != 0) continue;  // positional words are not dglrun's
    std::string flag = t, value;
    bool has_value = false;
    if (auto eq = t.find('='); eq != std::string::npos) {
      flag = t.substr(0, eq);
      value = t.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--balance-train") {
      f.balance_train = true;
      continue;
    }
    if (flag == "--balance-edges") {
      f.balance_edges = true;
      continue;
    }
    static const char* kValued[] = {"--graph-name",   "--num-partitions", "--dataset-url",   "--partition-entry-point",
                                    "--train-entry-point", "--num-epochs", "--batch-size",  "--num-trainers",
                                    "--num-samplers", "--num-servers",    "--part-method",   "--model",
                                    "--workspace",    "--worksapce",       "--partition-pipeline"};
    bool valued = false;
    for (const char* k : kValued) valued = valued || flag == k;
    if (!valued) {
      f.unknown.push_back(flag);
      // An unknown flag's value (if the next token is not a flag) is skipped with it.
      if (!has_value && i + 1 < tokens.size() && tokens[i + 1].rfind("--", 0) != 0) ++i;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= tokens.size() || tokens[i + 1].rfind("--", 0) == 0) {
        f.errors.push_back(flag + ": expected one argument");
        continue;
      }
      value = tokens[++i];
    }
    if (flag == "--graph-name") f.graph_name = value;
    else if (flag == "--dataset-url") f.dataset_url = value;
    else if (flag == "--partition-entry-point") f.partition_entry_point = value;
    else if (flag == "--train-entry-point") f.train_entry_point = value;
    else if (flag == "--model") f.model = value;
    else if (flag == "--workspace" || flag == "--worksapce") f.workspace = value;
    else if (flag == "--num-partitions") f.num_partitions_given = int_value(flag, value, 1, &f.num_partitions) || f.num_partitions_given;
    else if (flag == "--num-epochs") int_value(flag, value, 0, &f.num_epochs);
    else if (flag == "--batch-size") int_value(flag, value, 1, &f.batch_size);
    else if (flag == "--num-trainers") int_value(flag, value, 1, &f.num_trainers);
    else if (flag == "--num-samplers") int_value(flag, value, 0, &f.num_samplers);
    else if (flag == "--num-servers") int_value(flag, value, 1, &f.num_servers);
    else if (flag == "--partition-pipeline") {
      if (value == "parmetis" || value == "chunked") f.partition_pipeline = value;
      else f.errors.push_back("--partition-pipeline: invalid choice: '" + value + "' (choose from 'parmetis', 'chunked')");
    } else if (flag == "--part-method") {
      if (value == "metis" || value == "random") f.part_method = value;
      else f.errors.push_back("--part-method: invalid choice: '" + value + "' (choose from 'metis', 'random')");
    }
  }
  return f;
}

}  // namespace sim::dglmodels
