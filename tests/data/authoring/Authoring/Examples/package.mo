within Authoring;
package Examples "Models that run alone, each with a known solution"
end Examples;
