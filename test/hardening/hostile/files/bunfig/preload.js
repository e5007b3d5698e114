require("node:fs").writeFileSync("preloaded.txt", "code from the working directory ran inside lait\n")
