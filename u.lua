function f(rec) return 1 end
