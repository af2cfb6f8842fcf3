#include "sim/cli/shards.h"

#include "sim/kernel/input_file.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace dglsim_cli {

std::optional<harness::Shard> ShardFromFlag(const std::string& text, std::string* why) {
  std::optional<harness::Shard> shard;
  const char* index = std::getenv("JOB_COMPLETION_INDEX");
  if (text.find('/') != std::string::npos) {
    shard = harness::ParseShard(text);
  } else if (index == nullptr) {
    *why = "--shard " + text + ": JOB_COMPLETION_INDEX is not set (write --shard I/N)";
    return std::nullopt;
  } else {
    shard = harness::ParseShard(std::string(index) + "/" + text);
  }
  if (!shard)
    *why = "--shard " + text + (text.find('/') == std::string::npos ? " with JOB_COMPLETION_INDEX=" + std::string(index) : "") +
           ": expected I/N with 0 <= I < N, or N with JOB_COMPLETION_INDEX set";
  return shard;
}

std::string SliceFileName(const std::string& dir, const std::string& name, const std::string& marker,
                          const harness::Shard& shard) {
  return (dir.empty() ? "." : dir) + "/" + name + marker + std::to_string(shard.index) + "-of-" +
         std::to_string(shard.count) + ".json";
}

std::vector<std::string> SliceFiles(const std::vector<std::string>& args, const std::string& marker) {
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(arg, ec)) {
      files.push_back(arg);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.find(marker) != std::string::npos && name.ends_with(".json")) found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) std::cerr << arg << ": no slices (*" << marker << "I-of-N.json) in this directory\n";
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<kube::Json> ReadSlices(const std::vector<std::string>& files, std::vector<std::string>* problems) {
  std::vector<kube::Json> slices;
  for (const std::string& file : files) {
    sim::InputFile text = sim::ReadInputFile(file, sim::kMaxDocumentBytes);
    kube::Json slice = text.ok() ? kube::Json::parse(text.text, nullptr, false) : kube::Json();
    if (!text.ok()) problems->push_back(file + ": cannot read a JSON slice: " + text.error);
    else if (slice.is_discarded()) problems->push_back(file + ": cannot read a JSON slice: not JSON");
    slices.push_back(std::move(slice));
  }
  return slices;
}

}  // namespace dglsim_cli
