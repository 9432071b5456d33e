/** Runs in every test file: temp dirs made for a whole file (in beforeAll) go when it is done. */
import { afterAll } from "vitest";
import { removeSuiteDirs } from "./gitdir.js";

afterAll(removeSuiteDirs);
